import GRDB

/// Retention and metrics (PSH-11): the 90-day purge and the counts status displays show.
extension PushStore {
    /// Deletes records (and digests) in a final status untouched for 90 days. Held and queued
    /// records are never purged: they are still owed to the user. Returns how many records went.
    @discardableResult
    public func purge(now: Int64) throws(PushError) -> Int {
        let cutoff = now - Self.retentionSeconds
        return try write("purge old push records") { db in
            try db.execute(sql: "DELETE FROM push_notifications WHERE status IN ('SENT', 'DELIVERED', 'OPENED', 'FAILED') AND updated_at < ?",
                           arguments: [cutoff])
            let purged = db.changesCount
            try db.execute(sql: """
                DELETE FROM push_digests WHERE status IN ('SENT', 'DELIVERED', 'OPENED', 'FAILED') AND updated_at < ?
                  AND NOT EXISTS (SELECT 1 FROM push_notifications n WHERE n.digest_id = push_digests.id)
                """, arguments: [cutoff])
            return purged
        }
    }

    /// Notification records per status, every status present (0 when none), for metrics.
    public func statusCounts() throws(PushError) -> [NotificationStatus: Int] {
        let rows = try read("count push records") { db in
            try Row.fetchAll(db, sql: "SELECT status, COUNT(*) AS n FROM push_notifications GROUP BY status")
        }
        var counts = Dictionary(uniqueKeysWithValues: NotificationStatus.allCases.map { ($0, 0) })
        for row in rows {
            if let status = NotificationStatus(rawValue: row["status"]) { counts[status] = row["n"] }
        }
        return counts
    }

    /// Counts and next due times for status displays.
    public func overview() throws(PushError) -> PushOverview {
        let counts = try statusCounts()
        return try read("read the push overview") { db in
            PushOverview(
                counts: counts,
                nextRelease: try Int64.fetchOne(db, sql: "SELECT MIN(held_until) FROM push_notifications WHERE status = 'HELD'"),
                queuedDigests: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM push_digests WHERE status = 'QUEUED'") ?? 0,
                nextDigestAt: try Int64.fetchOne(db, sql: "SELECT MIN(release_at) FROM push_digests WHERE status = 'QUEUED'"),
                users: try Int.fetchOne(db, sql: """
                    SELECT COUNT(*) FROM (SELECT user_id FROM push_users UNION SELECT user_id FROM push_devices
                                          UNION SELECT user_id FROM push_notifications)
                    """) ?? 0,
                activeDevices: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM push_devices WHERE retired_at IS NULL") ?? 0,
                retiredDevices: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM push_devices WHERE retired_at IS NOT NULL") ?? 0,
                badgeTotal: try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(pending_approvals + unread), 0) FROM push_badges") ?? 0)
        }
    }
}
