#ifndef EDGE_CTSS_SHIM_H
#define EDGE_CTSS_SHIM_H
// Types, constants and macros only: the libraries are loaded with dlopen on first use
// (EdgeTPM/TSSLibrary.swift) and every function is called through a pointer from dlsym.
#include <tss2/tss2_esys.h>
#include <tss2/tss2_tctildr.h>
#include <tss2/tss2_rc.h>
#include <tss2/tss2_mu.h>
#endif
