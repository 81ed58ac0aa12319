#ifndef EDGE_CTURBOJPEG_SHIM_H
#define EDGE_CTURBOJPEG_SHIM_H
// No wrappers: the TurboJPEG API returns error codes instead of calling error_exit/longjmp,
// so Swift calls it directly.
#include <turbojpeg.h>
#endif
