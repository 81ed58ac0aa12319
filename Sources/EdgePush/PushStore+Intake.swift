import GRDB

/// Intake (PSH-3, PSH-4): each notification recorded with its decision (send now, hold, suppress).
extension PushStore {
    /// Records `notification` and decides what happens to it: QUEUED to send now, HELD until the
    /// end of the user's quiet hours, or FAILED with the suppression reason. Counts it in the
    /// badge unless suppressed.
    @discardableResult
    public func accept(_ notification: PushNotification, now: Int64) throws(PushError) -> AcceptedNotification {
        try write("record a notification") { db in try accept(db, notification, now: now) }
    }

    /// `accept` for many notifications in one transaction: one disk flush for the batch, which is
    /// what lets intake keep up with thousands a second (PSH-10) at `synchronous=FULL`.
    @discardableResult
    public func accept(_ notifications: [PushNotification], now: Int64) throws(PushError) -> [AcceptedNotification] {
        try write("record notifications") { db in
            var accepted: [AcceptedNotification] = []
            accepted.reserveCapacity(notifications.count)
            for notification in notifications { accepted.append(try accept(db, notification, now: now)) }
            return accepted
        }
    }

    /// `accept` inside the caller's transaction: a notification raised by a pulled change or a
    /// confirmed GRN is recorded exactly when what raised it is, never one without the other.
    public func accept(_ db: Database, _ notification: PushNotification, now: Int64) throws -> AcceptedNotification {
        let preferences = try Self.preferences(db, userID: notification.userID)
        let quiet = try QuietHours.evaluate(at: now, preferences, stationZone: stationZone, zones: zones)
        let decision = PushDecision.decide(notification, preferences: preferences, now: now, quiet: quiet)
        let status: NotificationStatus
        var heldUntil: Int64?
        var reason: String?
        switch decision {
        case .sendNow: status = .queued
        case .hold(let until):
            status = .held
            heldUntil = until
        case .suppressed(let why):
            status = .failed
            reason = why.rawValue
        }
        let counted = status != .failed
        // The tag is fixed once, from the record id, so every retry carries the same one (PSH-6).
        // The id is chosen here, as AUTOINCREMENT would (above every id ever used, deleted ones
        // too), so the row is written once with its tag instead of inserted and then updated
        // (issue #31). Safe: this runs inside a write transaction, which holds the write lock.
        let id = try Int64.fetchOne(db.cachedStatement(sql: """
            SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'push_notifications'), 0),
                       COALESCE((SELECT MAX(id) FROM push_notifications), 0)) + 1
            """)) ?? 1
        let insert = try db.cachedStatement(sql: """
            INSERT INTO push_notifications (id, user_id, type, priority, title, body, deep_link, ttl_seconds, created_at, expires_at,
                status, reason, tag, held_until, counted_in_badge, received_at, held_at, queued_at, failed_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        try insert.execute(arguments: [id, notification.userID, notification.type.rawValue, notification.priority.rawValue, notification.title,
                                       notification.body, notification.deepLink, notification.ttlSeconds, notification.createdAt,
                                       notification.expiresAt, status.rawValue, reason, "n-\(id)", heldUntil, counted, now,
                                       status == .held ? now : nil, status == .queued ? now : nil, status == .failed ? now : nil, now])
        let badge = counted ? try Self.countInBadge(db, userID: notification.userID, type: notification.type, delta: 1, now: now)
                            : try Self.badge(db, userID: notification.userID)
        let record = NotificationRecord(id: id, notification: notification, status: status, reason: reason, heldUntil: heldUntil, now: now)
        return AcceptedNotification(record: record, decision: decision, badge: badge)
    }
}
