import GRDB

/// A notification's durable record (PSH-11).
public struct NotificationRecord: Sendable, Hashable {
    public let id: Int64
    public let userID: String
    public let type: NotificationType
    public let priority: NotificationPriority
    public let title: String
    public let body: String
    public let deepLink: String?
    public let ttlSeconds: Int64
    public let createdAt: Int64
    public let expiresAt: Int64
    public let status: NotificationStatus
    /// Why it FAILED (a `SuppressionReason` raw value or the sender's reason).
    public let reason: String?
    /// The FCM tag / apns-collapse-id, fixed at intake so a retry replaces, never stacks (PSH-6).
    public let tag: String
    public let heldUntil: Int64?
    /// The digest it went out in, once released.
    public let digestID: Int64?
    public let updatedAt: Int64

    /// A record as `accept` just wrote it, without reading it back.
    init(id: Int64, notification n: PushNotification, status: NotificationStatus, reason: String?, heldUntil: Int64?, now: Int64) {
        self.id = id
        userID = n.userID
        type = n.type
        priority = n.priority
        title = n.title
        body = n.body
        deepLink = n.deepLink
        ttlSeconds = n.ttlSeconds
        createdAt = n.createdAt
        expiresAt = n.expiresAt
        self.status = status
        self.reason = reason
        tag = "n-\(id)"
        self.heldUntil = heldUntil
        digestID = nil
        updatedAt = now
    }

    init(row: Row) throws(PushError) {
        try self.init(row: row, columns: NotificationColumns(row))
    }

    /// A row whose column positions are already known (the rows of one fetch share them).
    init(row: Row, columns c: NotificationColumns) throws(PushError) {
        guard let type = NotificationType(rawValue: row[c.type]),
              let priority = NotificationPriority(rawValue: row[c.priority]),
              let status = NotificationStatus(rawValue: row[c.status]) else {
            throw PushError(.databaseFailure, "A push notification record has a type, priority or status this edge does not know.",
                            context: ["id": String(describing: row[c.id] as Int64?)])
        }
        id = row[c.id]
        userID = row[c.userID]
        self.type = type
        self.priority = priority
        title = row[c.title]
        body = row[c.body]
        deepLink = row[c.deepLink]
        ttlSeconds = row[c.ttlSeconds]
        createdAt = row[c.createdAt]
        expiresAt = row[c.expiresAt]
        self.status = status
        reason = row[c.reason]
        tag = row[c.tag]
        heldUntil = row[c.heldUntil]
        digestID = row[c.digestID]
        updatedAt = row[c.updatedAt]
    }
}
