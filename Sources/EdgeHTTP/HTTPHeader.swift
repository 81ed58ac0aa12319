/// One header field. Names keep the caller's spelling on requests; `HTTPResponse` lower-cases them.
///
/// `description`, `debugDescription` and the mirror (`dump`) hide the value of credential-bearing
/// headers (`Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`), so a header list
/// can be logged or printed in a test failure without leaking the bearer token.
public struct HTTPHeader: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public let name: String
    public let value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    /// Whether the value is a credential and must never be printed.
    public var isSensitive: Bool {
        switch ASCIILowercase.string(name) {
        case "authorization", "proxy-authorization", "cookie", "set-cookie": true
        default: false
        }
    }

    /// The value as printed: `<redacted>` for sensitive headers.
    var printableValue: String { isSensitive ? "<redacted>" : value }

    public var description: String { "\(name): \(printableValue)" }
    public var debugDescription: String { "HTTPHeader(\(description))" }
    public var customMirror: Mirror { Mirror(self, children: ["name": name, "value": printableValue]) }
}
