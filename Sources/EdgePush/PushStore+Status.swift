import GRDB

/// Notification records and their status (PSH-11): reads, and the allowed transitions.
extension PushStore {
    /// QUEUED notifications to send on their own (not part of a digest), oldest first.
    public func queuedNotifications(limit: Int = 100) throws(PushError) -> [NotificationRecord] {
        try records("read queued notifications", sql: """
            SELECT * FROM push_notifications WHERE status = 'QUEUED' AND digest_id IS NULL ORDER BY id LIMIT ?
            """, [max(0, limit)])
    }

    /// A user's notification records in `status`, oldest first.
    public func notifications(userID: String, status: NotificationStatus) throws(PushError) -> [NotificationRecord] {
        try records("read notifications", sql: "SELECT * FROM push_notifications WHERE user_id = ? AND status = ? ORDER BY id",
                    [userID, status.rawValue])
    }

    public func notification(id: Int64) throws(PushError) -> NotificationRecord {
        try read("read a notification") { db in try Self.record(db, id: id) }
    }


    /// Moves a record on: QUEUED → SENT or FAILED; SENT → DELIVERED, OPENED or FAILED;
    /// DELIVERED → OPENED. Repeating the current status is a no-op (a retried callback).
    /// OPENED takes the notification out of the badge.
    public func updateStatus(notificationID: Int64, to status: NotificationStatus, reason: String? = nil,
                             now: Int64) throws(PushError) {
        try write("update a notification's status") { db in
            let record = try Self.record(db, id: notificationID)
            guard record.status != status else { return }
            try Self.checkTransition(from: record.status, to: status, what: "notification \(notificationID)")
            try Self.setStatus(db, .notification(notificationID), to: status, reason: reason, now: now)
        }
    }

    /// Moves a digest on (same rules as `updateStatus`), with every notification it carries.
    public func updateDigestStatus(digestID: Int64, to status: NotificationStatus, reason: String? = nil,
                                   now: Int64) throws(PushError) {
        try write("update a digest's status") { db in
            let digest = try Self.digest(db, id: digestID)
            guard digest.status != status else { return }
            try Self.checkTransition(from: digest.status, to: status, what: "digest \(digestID)")
            try Self.setStatus(db, .digest(digestID), to: status, reason: reason, now: now)
        }
    }

    /// An app receipt (PSH-11) inside the pulled page's transaction: SENT → DELIVERED or OPENED,
    /// DELIVERED → OPENED. Returns whether the record moved. Receipts repeat and arrive out of
    /// order, so a receipt for the status the record has, or a DELIVERED after OPENED, changes
    /// nothing; a receipt for a record never sent (or FAILED) is refused.
    public func receipt(_ db: Database, _ target: PushTarget, status: NotificationStatus, now: Int64) throws -> Bool {
        let current: NotificationStatus
        switch target {
        case .notification(let id): current = try Self.record(db, id: id).status
        case .digest(let id): current = try Self.digest(db, id: id).status
        }
        if current == status || (current == .opened && status == .delivered) { return false }
        try Self.checkTransition(from: current, to: status, what: target.key)
        try Self.setStatus(db, target, to: status, reason: nil, now: now)
        return true
    }

    static func checkTransition(from: NotificationStatus, to: NotificationStatus, what: String) throws(PushError) {
        let allowed: Set<NotificationStatus>
        switch from {
        case .queued: allowed = [.sent, .failed]
        case .sent: allowed = [.delivered, .opened, .failed]
        case .delivered: allowed = [.opened]
        case .held, .opened, .failed: allowed = []
        }
        guard allowed.contains(to) else {
            throw PushError(.invalidTransition, "The \(what) is \(from.rawValue) and cannot become \(to.rawValue).",
                            context: ["from": from.rawValue, "to": to.rawValue])
        }
    }

    /// Sets a notification's status, or a digest's and that of every notification it carries.
    static func setStatus(_ db: Database, _ target: PushTarget, to status: NotificationStatus, reason: String?,
                                  now: Int64) throws {
        switch target {
        case .notification(let id):
            try setStatus(db, notificationIDs: [id], status: status, reason: reason, now: now)
        case .digest(let id):
            try db.cachedStatement(sql: "UPDATE push_digests SET status = ?, reason = ?, updated_at = ? WHERE id = ?")
                .execute(arguments: [status.rawValue, reason, now, id])
            let ids = try Int64.fetchAll(db.cachedStatement(sql: "SELECT id FROM push_notifications WHERE digest_id = ?"), arguments: [id])
            try setStatus(db, notificationIDs: ids, status: status, reason: reason, now: now)
        }
    }

    static func setStatus(_ db: Database, notificationIDs: [Int64], status: NotificationStatus, reason: String?,
                                  now: Int64) throws {
        let column: String
        switch status {
        case .queued: column = "queued_at"
        case .held: column = "held_at"
        case .sent: column = "sent_at"
        case .delivered: column = "delivered_at"
        case .opened: column = "opened_at"
        case .failed: column = "failed_at"
        }
        let uncount = status == .opened || status == .failed
        for id in notificationIDs {
            if uncount, let row = try Row.fetchOne(db.cachedStatement(sql: """
                SELECT user_id, type FROM push_notifications WHERE id = ? AND counted_in_badge = 1
                """), arguments: [id]), let type = NotificationType(rawValue: row["type"]) {
                try countInBadge(db, userID: row["user_id"], type: type, delta: -1, now: now)
            }
            try db.cachedStatement(sql: """
                UPDATE push_notifications SET status = ?, reason = COALESCE(?, reason), \(column) = ?, updated_at = ?,
                    counted_in_badge = CASE WHEN ? THEN 0 ELSE counted_in_badge END
                WHERE id = ?
                """).execute(arguments: [status.rawValue, reason, now, now, uncount, id])
        }
    }

    static func record(_ db: Database, id: Int64) throws -> NotificationRecord {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM push_notifications WHERE id = ?"), arguments: [id]) else {
            throw PushError(.notFound, "There is no push notification record \(id).", context: ["id": String(id)])
        }
        return try NotificationRecord(row: row)
    }
}
