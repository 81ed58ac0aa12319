import GRDB

/// Badges (PSH-5): pending approvals plus unread, never negative.
extension PushStore {
    /// What the user has not seen: pending approvals plus unread notifications; never negative.
    public func badge(for userID: String) throws(PushError) -> Int {
        try read("read a badge") { db in try Self.badge(db, userID: userID) }
    }

    /// The user opened the inbox (an event from the sync core): everything has been seen, the
    /// badge is 0. Returns the new badge.
    ///
    /// Decision: pending approvals are reset too, since the inbox shows them; an approval raised
    /// after this counts again. APPROVAL_PENDING notifications count as pending approvals,
    /// everything else as unread; OPENED or FAILED records leave the count.
    @discardableResult
    public func inboxOpened(userID: String, now: Int64) throws(PushError) -> Int {
        try PushPreferences.validateUserID(userID)
        return try write("reset a badge") { db in try inboxOpened(db, userID: userID, now: now) }
    }

    /// `inboxOpened` inside the caller's transaction (a pulled INBOX_OPENED change).
    @discardableResult
    public func inboxOpened(_ db: Database, userID: String, now: Int64) throws -> Int {
        try db.execute(sql: """
            INSERT INTO push_badges (user_id, pending_approvals, unread, updated_at) VALUES (?, 0, 0, ?)
            ON CONFLICT(user_id) DO UPDATE SET pending_approvals = 0, unread = 0, updated_at = excluded.updated_at
            """, arguments: [userID, now])
        try db.execute(sql: "UPDATE push_notifications SET counted_in_badge = 0 WHERE user_id = ? AND counted_in_badge = 1",
                       arguments: [userID])
        return 0
    }

    /// An approval was decided elsewhere (an event from the sync core): one fewer pending.
    @discardableResult
    public func approvalResolved(userID: String, now: Int64) throws(PushError) -> Int {
        try PushPreferences.validateUserID(userID)
        return try write("count a resolved approval") { db in try approvalResolved(db, userID: userID, now: now) }
    }

    /// `approvalResolved` inside the caller's transaction (a pulled APPROVAL_RESOLVED change).
    @discardableResult
    public func approvalResolved(_ db: Database, userID: String, now: Int64) throws -> Int {
        try Self.countInBadge(db, userID: userID, type: .approvalPending, delta: -1, now: now)
    }

    /// Adds `delta` to the user's unread count, or to pending approvals for APPROVAL_PENDING;
    /// clamped at 0 (PSH-5: never negative, whatever order events arrive in). Returns the badge
    /// after the change.
    ///
    /// One upsert with RETURNING instead of insert, update and a read: each statement cost the
    /// relay ~10-15k instructions per notification (issue #31).
    @discardableResult
    static func countInBadge(_ db: Database, userID: String, type: NotificationType, delta: Int, now: Int64) throws -> Int {
        let approval = type == .approvalPending
        let column = approval ? "pending_approvals" : "unread"
        let first = max(0, delta)
        return try Int.fetchOne(db.cachedStatement(sql: """
            INSERT INTO push_badges (user_id, pending_approvals, unread, updated_at) VALUES (?, ?, ?, ?)
            ON CONFLICT(user_id) DO UPDATE SET \(column) = MAX(0, \(column) + ?), updated_at = excluded.updated_at
            RETURNING pending_approvals + unread
            """), arguments: [userID, approval ? first : 0, approval ? 0 : first, now, delta]) ?? 0
    }

    static func badge(_ db: Database, userID: String) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT pending_approvals + unread FROM push_badges WHERE user_id = ?"), arguments: [userID]) ?? 0
    }
}
