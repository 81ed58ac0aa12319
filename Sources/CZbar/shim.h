#ifndef EDGE_CZBAR_SHIM_H
#define EDGE_CZBAR_SHIM_H
#include <zbar.h>

/// zbar_fourcc is a macro; Swift cannot expand function-like macros.
static inline unsigned long edge_zbar_fourcc_y800(void) { return zbar_fourcc('Y', '8', '0', '0'); }

#endif
