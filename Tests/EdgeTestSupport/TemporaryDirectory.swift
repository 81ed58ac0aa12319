import FoundationEssentials
import Glibc
import XCTest

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

    public var url: URL { URL(fileURLWithPath: path, isDirectory: true) }

    /// Removes the directory and its `-keys` sibling now, for holders that outlive their use (an
    /// XCTest case instance lives until the whole run ends).
    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
        try? FileManager.default.removeItem(atPath: keysSibling)
    }

    deinit { remove() }
}

extension XCTestCase {
    /// A `TemporaryDirectory` removed by this test's teardown, whichever test case holds it.
    public func temporaryDirectory(prefix: String = "edge-test") throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory(prefix: prefix)
        addTeardownBlock { directory.remove() }
        return directory
    }
}
