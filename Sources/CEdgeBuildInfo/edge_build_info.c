#include "edge_build_info.h"

// Weak: packaging/build-deb links an object with a strong definition naming the commit
// (`-Xlinker edge-build-<commit>.o`); every other build (swift build, swift test) keeps this one.
__attribute__((weak)) const char *edge_build_commit(void) {
    return "unknown";
}
