/// A device token FCM reported dead (PSH-9), to retire with the reason.
public struct RetiredToken: Sendable, Hashable {
    public let token: String
    public let reason: String

    public init(token: String, reason: String) {
        self.token = token
        self.reason = reason
    }
}
