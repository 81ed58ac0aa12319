#ifndef EDGE_BUILD_INFO_H
#define EDGE_BUILD_INFO_H

/// The commit this binary was built from, or "unknown" (EdgeCore/BuildInfo.swift says why it is
/// a weak C function that packaging/build-deb replaces at link time).
const char *edge_build_commit(void);

#endif
