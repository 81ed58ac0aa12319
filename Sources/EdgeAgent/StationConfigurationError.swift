import EdgeCore

/// A station configuration that cannot be used, in the project's one error shape. The message
/// names the file and the key path (`configuration /etc/edge/edge.json: station.cameras[1].device:
/// ...`), so an operator can go straight to the line; `context` carries `file`, `keyPath` and
/// `reason` separately for programs.
public typealias StationConfigurationError = CodedError<StationConfigurationErrorCode>

public enum StationConfigurationErrorCode: String, Sendable, Hashable {
    case unreadable
    case tooLarge = "too-large"
    case invalid
    /// A key no part of edge reads (AGT-10): a typo, or a key of another version.
    case unknownKey = "unknown-key"
}

extension CodedError where Code == StationConfigurationErrorCode {
    public init(_ code: StationConfigurationErrorCode, keyPath: String, _ reason: String, file: String? = nil) {
        let location = keyPath.isEmpty ? "" : keyPath + ": "
        var context = ["keyPath": keyPath, "reason": reason]
        if let file { context["file"] = file }
        self.init(code, "configuration \(file ?? "edge.json"): \(location)\(reason)", context: context)
    }

    /// The key path inside the file (`sync.base_url`); empty for the file as a whole.
    public var keyPath: String { context["keyPath"] ?? "" }

    /// The same error naming `file`.
    func located(in file: String) -> StationConfigurationError {
        StationConfigurationError(code, keyPath: keyPath, context["reason"] ?? message, file: file)
    }
}
