#ifndef EDGE_CPNG_SHIM_H
#define EDGE_CPNG_SHIM_H
// No wrappers: the simplified read API (png_image_*) catches libpng's longjmp internally,
// so Swift calls it directly.
#include <png.h>
#endif
