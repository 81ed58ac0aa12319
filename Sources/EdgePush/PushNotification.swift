/// A notification handed to the relay (PSH-1).
public struct PushNotification: Sendable, Hashable {
    public static let maxTitleBytes = 200
    public static let maxBodyBytes = 1000
    /// FCM's own TTL ceiling (28 days).
    public static let maxTTLSeconds: Int64 = 28 * 24 * 3600

    public let userID: String
    public let type: NotificationType
    public let priority: NotificationPriority
    public let title: String
    public let body: String
    /// `/approvals/{id}`, ...
    public let deepLink: String?
    /// How long the notification is worth delivering, from `createdAt`.
    public let ttlSeconds: Int64
    /// Unix seconds.
    public let createdAt: Int64

    /// Throws `.invalidArgument` for an empty title, fields over their limits or a TTL outside
    /// 1 s ... 28 days.
    public init(userID: String, type: NotificationType, priority: NotificationPriority, title: String, body: String,
                deepLink: String? = nil, ttlSeconds: Int64, createdAt: Int64) throws(PushError) {
        try PushPreferences.validateUserID(userID)
        guard !title.isEmpty, title.utf8.count <= Self.maxTitleBytes, body.utf8.count <= Self.maxBodyBytes else {
            throw PushError(.invalidArgument, "A notification needs a title of 1 to \(Self.maxTitleBytes) bytes and a body of at most \(Self.maxBodyBytes).",
                            context: ["titleBytes": String(title.utf8.count), "bodyBytes": String(body.utf8.count)])
        }
        guard ttlSeconds >= 1, ttlSeconds <= Self.maxTTLSeconds else {
            throw PushError(.invalidArgument, "A notification's TTL must be between 1 second and 28 days.",
                            context: ["ttlSeconds": String(ttlSeconds)])
        }
        if let deepLink {
            guard deepLink.hasPrefix("/"), deepLink.utf8.count <= 512 else {
                throw PushError(.invalidArgument, "A deep link is an app path starting with / of at most 512 bytes, such as /approvals/42.",
                                context: ["field": "deepLink"])
            }
        }
        self.userID = userID
        self.type = type
        self.priority = priority
        self.title = title
        self.body = body
        self.deepLink = deepLink
        self.ttlSeconds = ttlSeconds
        self.createdAt = createdAt
    }

    public var expiresAt: Int64 { createdAt + ttlSeconds }
}
