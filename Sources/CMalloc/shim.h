#ifndef EDGE_CMALLOC_SHIM_H
#define EDGE_CMALLOC_SHIM_H
// No wrappers: glibc's <malloc.h> (mallinfo2, malloc_trim) is not part of Swift's Glibc module,
// and its functions are callable directly. Part of libc, so nothing to link.
#include <malloc.h>
#endif
