/// An access token on its way into an Authorization header. Its description is redacted so it
/// cannot reach a log or an error by interpolation.
public struct BearerToken: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    let value: String

    public init(_ value: String) {
        self.value = value
    }

    /// The `Authorization` header's value: the one way the token leaves this type.
    public var authorizationValue: String { "Bearer " + value }

    public var description: String { "<redacted token>" }
    public var debugDescription: String { description }
}
