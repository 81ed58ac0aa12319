/// An error from the scanning layer: a code, a one-line user-facing message, and context.
public struct ScanError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case unknownSymbology = "unknown-symbology"
        case zbarFailure = "zbar-failure"
        case badImage = "bad-image"
        case unknownPass = "unknown-pass"
    }

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
