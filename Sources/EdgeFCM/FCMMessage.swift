/// One FCM HTTP v1 message ready to send: the serialized `{"message": ...}` body for one device
/// token, checked against FCM's rules when built (PSH-7).
public struct FCMMessage: Sendable, Hashable, CustomStringConvertible {
    /// FCM's limit on the serialized message.
    public static let maxBytes = 4096

    /// The one target.
    public let token: String
    /// `{"message": {...}}`, UTF-8 JSON with sorted keys.
    public let body: [UInt8]
    /// Unix seconds after which the message is not worth delivering (its TTL's end).
    public let expiresAt: Int64

    init(token: String, body: [UInt8], expiresAt: Int64) {
        self.token = token
        self.body = body
        self.expiresAt = expiresAt
    }

    /// The body carries the notification's text: only its size is shown.
    public var description: String { "FCMMessage(\(body.count) bytes, expires \(expiresAt))" }
}
