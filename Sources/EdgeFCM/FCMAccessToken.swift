/// An OAuth2 access token for FCM and when it expires. The description never shows the token.
public struct FCMAccessToken: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    let value: String
    /// The `Authorization` header's value, made once per token rather than once per send (issue #31).
    let authorization: String
    /// Wall-clock Unix seconds.
    public let expiresAt: Double

    init(value: String, expiresAt: Double) {
        self.value = value
        authorization = "Bearer " + value
        self.expiresAt = expiresAt
    }

    public var description: String { "FCMAccessToken(<redacted>, expires \(Int64(expiresAt)))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["expiresAt": expiresAt]) }
}
