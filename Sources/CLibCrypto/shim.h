#ifndef EDGE_CLIBCRYPTO_SHIM_H
#define EDGE_CLIBCRYPTO_SHIM_H
// Types, constants and macros only (and the prctl wrappers below): libcrypto is loaded with dlopen on first use
// (EdgeCrypto/LibCrypto.swift) and every function is called through a pointer from dlsym.
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/bio.h>
#include <openssl/pem.h>
#include <sys/prctl.h>

// Keeping secrets out of core dumps (EdgeCrypto/DumpProtection.swift). Not libcrypto, but part of
// the same secret-hygiene seam. prctl(2) is variadic, which Swift cannot call: fixed signatures.
static inline int edge_prctl_set_dumpable(unsigned long dumpable) {
    return prctl(PR_SET_DUMPABLE, dumpable, 0UL, 0UL, 0UL);
}
static inline int edge_prctl_get_dumpable(void) {
    return prctl(PR_GET_DUMPABLE, 0UL, 0UL, 0UL, 0UL);
}
#endif
