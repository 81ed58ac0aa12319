/// The payload of a pulled `NOTIFICATION` change (PSH-1): a notification for the relay to deliver.
public struct PushNotificationChange: Sendable, Hashable, Codable {
    public var userID: String
    public var type: String
    public var priority: String
    public var title: String
    public var body: String
    public var deepLink: String?
    public var ttlSeconds: Int64?

    public init(userID: String, type: String, priority: String, title: String, body: String, deepLink: String? = nil,
                ttlSeconds: Int64? = nil) {
        self.userID = userID
        self.type = type
        self.priority = priority
        self.title = title
        self.body = body
        self.deepLink = deepLink
        self.ttlSeconds = ttlSeconds
    }

    enum CodingKeys: String, CodingKey {
        case userID = "user_id", type, priority, title, body
        case deepLink = "deep_link"
        case ttlSeconds = "ttl_seconds"
    }
}
