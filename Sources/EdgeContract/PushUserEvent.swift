/// The payload of a pulled `INBOX_OPENED` or `APPROVAL_RESOLVED` change (PSH-5).
public struct PushUserEvent: Sendable, Hashable, Codable {
    public var userID: String

    public init(userID: String) {
        self.userID = userID
    }

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
    }
}
