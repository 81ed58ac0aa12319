/// The error shape shared by edge's library modules: a machine-readable code, a one-line
/// user-facing message, and context for operators (counts, paths, field names; never a secret
/// or a linking code). Each module names its own with a typealias over its code enum, e.g.
/// `typealias ScanError = CodedError<ScanErrorCode>`.
public struct CodedError<Code: RawRepresentable & Sendable & Hashable>: Error, Sendable, Hashable, CustomStringConvertible
where Code.RawValue == String {
    public let code: Code
    public let message: String
    public let context: [String: String]

    public init(_ code: Code, _ message: String, context: [String: String] = [:]) {
        self.code = code
        self.message = message
        self.context = context
    }

    public var description: String { message }
}

/// A Codable coding path as people write it in edge.json: `station.cameras[1].device`.
public enum CodingPathText {
    public static func text(_ codingPath: [any CodingKey]) -> String {
        var out = ""
        for key in codingPath {
            if let index = key.intValue {
                out += "[\(index)]"
            } else {
                out += out.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return out
    }
}
