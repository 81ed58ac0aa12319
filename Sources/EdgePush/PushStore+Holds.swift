import GRDB

/// Held notifications and digests (PSH-4): what quiet hours held is released as one digest per
/// user and group.
extension PushStore {
    /// Releases every held notification whose window has ended by `now`: in one transaction,
    /// those whose TTL passed become FAILED (`expired_while_held`), the rest become QUEUED inside
    /// one new digest per user and group, due at `now` plus a random 0...`spreadSeconds` so a
    /// station's users are not all pushed in the same second.
    public func releaseHeld(now: Int64, spreadSeconds: Int64 = PushStore.defaultReleaseSpreadSeconds,
                            using generator: inout some RandomNumberGenerator) throws(PushError) -> ReleaseReport {
        guard spreadSeconds >= 0 else {
            throw PushError(.invalidArgument, "The release spread cannot be negative.", context: ["spreadSeconds": String(spreadSeconds)])
        }
        var random = generator
        defer { generator = random }
        return try write("release held notifications") { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT * FROM push_notifications WHERE status = 'HELD' AND held_until <= ? ORDER BY user_id, id
                """, arguments: [now])
            var expired = 0
            var groups: [String: [NotificationGroup: [NotificationRecord]]] = [:]
            for row in rows {
                let record = try NotificationRecord(row: row)
                if record.expiresAt <= now {
                    try db.execute(sql: """
                        UPDATE push_notifications SET status = 'FAILED', reason = ?, failed_at = ?, updated_at = ?, counted_in_badge = 0
                        WHERE id = ?
                        """, arguments: [SuppressionReason.expiredWhileHeld.rawValue, now, now, record.id])
                    // It will never reach the phone, so it no longer counts as waiting to be seen.
                    try Self.countInBadge(db, userID: record.userID, type: record.type, delta: -1, now: now)
                    expired += 1
                } else {
                    groups[record.userID, default: [:]][record.type.group, default: []].append(record)
                }
            }
            var digests: [PushDigest] = []
            var released = 0
            for userID in groups.keys.sorted() {
                guard let byGroup = groups[userID] else { continue }
                for group in NotificationGroup.allCases {
                    guard let records = byGroup[group], let newest = records.last else { continue }
                    // Decision: URGENT notifications never wait (PSH-4), so a digest's "urgent"
                    // counts the HIGH ones that did: the most pressing of what was held.
                    let urgent = records.filter { $0.priority != .normal }.count
                    let body = records.count == 1 ? newest.title : newest.title + " and " + String(records.count - 1) + " more"
                    let releaseAt = now + (spreadSeconds > 0 ? Int64.random(in: 0 ... spreadSeconds, using: &random) : 0)
                    try db.execute(sql: """
                        INSERT INTO push_digests (user_id, type_group, tag, title, body, deep_link, count, urgent_count, release_at,
                            status, created_at, updated_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'QUEUED', ?, ?)
                        """, arguments: [userID, group.rawValue, PushDigest.tag(userID: userID, group: group),
                                         group.summary(count: records.count, urgent: urgent), body,
                                         records.count == 1 ? newest.deepLink : nil, records.count, urgent, releaseAt, now, now])
                    let digestID = db.lastInsertedRowID
                    for record in records {
                        try db.execute(sql: """
                            UPDATE push_notifications SET status = 'QUEUED', digest_id = ?, queued_at = ?, updated_at = ? WHERE id = ?
                            """, arguments: [digestID, now, now, record.id])
                    }
                    released += records.count
                    digests.append(try Self.digest(db, id: digestID))
                }
            }
            return ReleaseReport(digests: digests, released: released, expired: expired)
        }
    }

    /// `releaseHeld(now:spreadSeconds:using:)` with the system's random generator.
    public func releaseHeld(now: Int64, spreadSeconds: Int64 = PushStore.defaultReleaseSpreadSeconds) throws(PushError) -> ReleaseReport {
        var generator = SystemRandomNumberGenerator()
        return try releaseHeld(now: now, spreadSeconds: spreadSeconds, using: &generator)
    }

    /// QUEUED digests due by `now`, earliest first.
    public func dueDigests(now: Int64) throws(PushError) -> [PushDigest] {
        let rows = try read("read due digests") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM push_digests WHERE status = 'QUEUED' AND release_at <= ? ORDER BY release_at, id",
                             arguments: [now])
        }
        var digests: [PushDigest] = []
        for row in rows { digests.append(try PushDigest(row: row)) }
        return digests
    }

    static func digest(_ db: Database, id: Int64) throws -> PushDigest {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM push_digests WHERE id = ?", arguments: [id]) else {
            throw PushError(.notFound, "There is no push digest \(id).", context: ["id": String(id)])
        }
        return try PushDigest(row: row)
    }
}
