#ifndef EDGE_CLIBCRYPTO_SHIM_H
#define EDGE_CLIBCRYPTO_SHIM_H
// Types, constants and macros only: libcrypto is loaded with dlopen on first use
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
#endif
