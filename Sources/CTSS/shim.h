#ifndef EDGE_CTSS_SHIM_H
#define EDGE_CTSS_SHIM_H
#include <tss2/tss2_esys.h>
#include <tss2/tss2_tctildr.h>
#include <tss2/tss2_rc.h>
#include <tss2/tss2_mu.h>
#endif
