internal import CEdgeBuildInfo

/// This binary's version and the commit it was built from (AGT-9, issue #33): `edge --version`,
/// `edge_build_info` in /metrics, `edge status`, the kiosk's status page, and the version the
/// backend sees (X-App-Version, SYN-6; `StationParts.appVersion`).
///
/// Decision: the version is written here, in the source, and changes with a release; the
/// package's version (packaging/build-deb asks the built binary for it) is this one. The commit is
/// linked in: `edge_build_commit()` is a weak C function answering "unknown", and
/// packaging/build-deb links one more object with a strong definition naming the commit
/// (`git rev-parse`, `-dirty` for a changed tree): Go's `-ldflags -X`, in C terms. Not a Swift
/// file generated before the build nor a build-tool plugin: release builds compile each module
/// whole, so a source that changes with every commit would recompile this module and every one
/// above it (all of them, ~15 minutes on two cores) where a new link input only relinks; a plugin
/// would also run git at every build, tests included, and need a .git a source tarball lacks.
/// Swift has no valued `-D`, and `-Xcc -D` would change every module's compile flags just as much.
public struct BuildInfo: Codable, Sendable, Hashable, CustomStringConvertible {
    /// The release this source is. Bump it with the release (and the Debian package follows).
    public static let packageVersion = "0.4.0"

    /// This binary's.
    public static let current = BuildInfo(version: packageVersion, commit: String(cString: edge_build_commit()))

    /// e.g. "0.4.0".
    public var version: String
    /// e.g. "35bdbe3a1b2c", "35bdbe3a1b2c-dirty", or "unknown" for a build not made by packaging/build-deb.
    public var commit: String

    public init(version: String, commit: String) {
        self.version = version
        self.commit = commit
    }

    /// "0.4.0 (commit 35bdbe3a1b2c)": `edge --version`, status and the kiosk say it this way.
    public var description: String { "\(version) (commit \(commit))" }
}
