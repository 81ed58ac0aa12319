/// An error of the stand-in's own (not an HTTP answer), in the shape of EdgeCore's CodedError:
/// a code, a one-line message, and context. EdgeStandin does not depend on EdgeCore, which is the
/// agent's; the stand-in is a test tool beside it.
public struct StandinError: Error, Sendable, Hashable, CustomStringConvertible {
    public let code: StandinErrorCode
    public let message: String
    public let context: [String: String]

    public init(_ code: StandinErrorCode, _ message: String, context: [String: String] = [:]) {
        self.code = code
        self.message = message
        self.context = context
    }

    public var description: String { message }
}
