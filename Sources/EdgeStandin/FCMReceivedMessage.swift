import EdgeContract

/// A message the FCM stand-in accepted or refused, in arrival order, for test assertions.
/// `GET /_standin/fcm/messages` lists them as `{"project_id", "message", "body_bytes", "status", "error"?, "connection"}`.
public struct FCMReceivedMessage: Sendable, Hashable, Encodable {
    public let projectID: String
    /// The `message` object as received (nil when the body was not JSON).
    public let message: JSONValue?
    public let bodyBytes: Int
    /// The status answered.
    public let status: Int
    /// FCM's errorCode or status when refused.
    public let error: String?
    /// The connection it came on (`StandinRequest.connection`).
    public let connection: Int

    enum CodingKeys: String, CodingKey {
        case projectID = "project_id", message, bodyBytes = "body_bytes", status, error, connection
    }
}
