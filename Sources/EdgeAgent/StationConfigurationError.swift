/// A station configuration that cannot be used. The message names the file and the key path
/// (`edge.json: station.cameras[1].device: ...`), so an operator can go straight to the line.
public struct StationConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        case unreadable
        case tooLarge = "too-large"
        case invalid
    }

    public let code: Code
    /// The key path inside the file (`sync.base_url`); empty for the file as a whole.
    public let keyPath: String
    /// What is wrong, without the file and key path.
    public let reason: String
    /// The file, once known (the loader fills it in).
    public var file: String?

    public init(_ code: Code, keyPath: String, _ reason: String, file: String? = nil) {
        self.code = code
        self.keyPath = keyPath
        self.reason = reason
        self.file = file
    }

    /// One line for a person: file, key path, reason.
    public var message: String {
        let location = keyPath.isEmpty ? "" : keyPath + ": "
        return "configuration \(file ?? "edge.json"): \(location)\(reason)"
    }

    public var description: String { message }
}
