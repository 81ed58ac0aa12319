import EdgeContract

/// A message the FCM stand-in accepted or refused, in arrival order, for test assertions.
public struct FCMReceivedMessage: Sendable, Hashable {
    public let projectID: String
    /// The `message` object as received (nil when the body was not JSON).
    public let message: JSONValue?
    public let bodyBytes: Int
    /// The status answered.
    public let status: Int
    /// FCM's errorCode or status when refused.
    public let error: String?
}
