/// The payload of a pulled `PUSH_RECEIPT` change (PSH-11): the app's receipt for a notification
/// or digest the station's relay sent, passed on by the backend. It names what the app got in
/// the message's `data` (`notification_id` or `digest_id`, exactly one).
public struct PushReceiptChange: Sendable, Hashable, Codable {
    public enum Status: String, Sendable, Hashable, Codable, CaseIterable {
        case delivered = "DELIVERED"
        case opened = "OPENED"
    }

    public var notificationID: String?
    public var digestID: String?
    public var status: Status

    public init(notificationID: String? = nil, digestID: String? = nil, status: Status) {
        self.notificationID = notificationID
        self.digestID = digestID
        self.status = status
    }

    enum CodingKeys: String, CodingKey {
        case notificationID = "notification_id"
        case digestID = "digest_id"
        case status
    }
}
