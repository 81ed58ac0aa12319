import FoundationEssentials
import Glibc

/// A fresh directory under the system's temporary directory, removed when released, with its
/// sibling `<path>-keys`: where a station whose state directory it is keeps its vault keys
/// (`StationPaths.defaultKeyDirectory`).
public final class TemporaryDirectory: @unchecked Sendable {
    public let path: String

    public init(prefix: String = "edge-test") throws {
        var template = Array((FileManager.default.temporaryDirectory.path + "/\(prefix)-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ $0.baseAddress.flatMap { mkdtemp($0) } }) else {
            throw POSIXError(.EIO)
        }
        path = String(cString: made)
    }

    /// The vault key directory of a station whose state directory this is.
    public var keysSibling: String { path + "-keys" }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
        try? FileManager.default.removeItem(atPath: keysSibling)
    }
}
