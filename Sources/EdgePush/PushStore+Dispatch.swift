import GRDB

/// Sending (PSH-7, PSH-10, PSH-11): what is due, with its devices and badge, and how sends settled.
extension PushStore {
    /// What is due now, oldest first: QUEUED notifications on their own (up to `limit`), then
    /// QUEUED digests whose release time has come (up to `limit`), each with its user's active
    /// devices and badge, read in one snapshot.
    public func dueDispatches(now: Int64, limit: Int) throws(PushError) -> [PushDispatch] {
        try dueDispatches(now: now, limit: limit, after: DispatchCursor())
    }

    /// The notifications due to send after a cursor, in id order. Decision: the partial index of
    /// the rows still to send (migration v4) is named, because SQLite's planner, without
    /// statistics, prefers the digest index and walks every direct notification ever kept (90
    /// days of SENT history) from the cursor on.
    static let dueNotificationsSQL = """
        SELECT * FROM push_notifications INDEXED BY push_notifications_queued
        WHERE status = 'QUEUED' AND digest_id IS NULL AND id > ? ORDER BY id LIMIT ?
        """

    /// `dueDispatches(now:limit:)` for what lies after `cursor`: notifications with a larger id,
    /// digests later in (release time, id) order.
    public func dueDispatches(now: Int64, limit: Int, after cursor: DispatchCursor) throws(PushError) -> [PushDispatch] {
        let limit = max(0, limit)
        return try read("read what is due") { db in
            let notifications = try Row.fetchAll(db.cachedStatement(sql: Self.dueNotificationsSQL),
                                                 arguments: [cursor.notificationID, limit])
            let digests = try Row.fetchAll(db.cachedStatement(sql: """
                SELECT * FROM push_digests WHERE status = 'QUEUED' AND release_at <= ?
                    AND (release_at > ? OR (release_at = ? AND id > ?))
                ORDER BY release_at, id LIMIT ?
                """), arguments: [now, cursor.digestReleaseAt, cursor.digestReleaseAt, cursor.digestID, limit])
            return try Self.dispatches(db, notifications: notifications, digests: digests)
        }
    }

    /// The dispatches of `targets` that are still QUEUED (digests: and due by `now`), read in one
    /// snapshot like `dueDispatches`: for the sender's retries, which it knows by target.
    public func dispatches(for targets: [PushTarget], now: Int64) throws(PushError) -> [PushDispatch] {
        var notificationIDs: [Int64] = [], digestIDs: [Int64] = []
        for target in targets {
            switch target {
            case .notification(let id): notificationIDs.append(id)
            case .digest(let id): digestIDs.append(id)
            }
        }
        return try read("read notifications to retry") { db in
            var notifications: [Row] = [], digests: [Row] = []
            // Chunks keep each statement well under SQLite's limit on bound parameters.
            for chunk in Self.chunks(notificationIDs) {
                notifications += try Row.fetchAll(db, sql: """
                    SELECT * FROM push_notifications WHERE status = 'QUEUED' AND digest_id IS NULL
                        AND id IN (\(Self.placeholders(chunk.count))) ORDER BY id
                    """, arguments: StatementArguments(chunk))
            }
            for chunk in Self.chunks(digestIDs) {
                digests += try Row.fetchAll(db, sql: """
                    SELECT * FROM push_digests WHERE status = 'QUEUED' AND release_at <= ?
                        AND id IN (\(Self.placeholders(chunk.count))) ORDER BY release_at, id
                    """, arguments: [now] + StatementArguments(chunk))
            }
            return try Self.dispatches(db, notifications: notifications, digests: digests)
        }
    }

    static func chunks(_ ids: [Int64]) -> [ArraySlice<Int64>] {
        stride(from: 0, to: ids.count, by: 500).map { ids[$0 ..< min($0 + 500, ids.count)] }
    }

    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }

    /// Notification and digest rows with their users' active devices and badges.
    static func dispatches(_ db: Database, notifications: [Row], digests: [Row]) throws -> [PushDispatch] {
        var users: [String: (devices: [PushDevice], badge: Int)] = [:]
        func forUser(_ userID: String) throws -> (devices: [PushDevice], badge: Int) {
            if let known = users[userID] { return known }
            let found = (try activeDevices(db, userID: userID), try badge(db, userID: userID))
            users[userID] = found
            return found
        }
        var dispatches: [PushDispatch] = []
        dispatches.reserveCapacity(notifications.count + digests.count)
        // Every row is `SELECT *` of push_notifications: their columns are found once.
        let columns = try notifications.first.map(NotificationColumns.init)
        for row in notifications {
            guard let columns else { break }
            let record = try NotificationRecord(row: row, columns: columns)
            let user = try forUser(record.userID)
            dispatches.append(PushDispatch(item: .notification(record), devices: user.devices, badge: user.badge))
        }
        for row in digests {
            let digest = try PushDigest(row: row)
            let user = try forUser(digest.userID)
            dispatches.append(PushDispatch(item: .digest(digest), devices: user.devices, badge: user.badge))
        }
        return dispatches
    }

    /// Records how sends ended, and retires the tokens FCM reported dead, in one transaction (one
    /// disk flush per batch of sends, PSH-10). A target that is no longer QUEUED (another process
    /// settled it) is left as it is. Returns how many targets changed.
    @discardableResult
    public func settle(_ settlements: [PushSettlement], retiring tokens: [RetiredToken] = [], now: Int64) throws(PushError) -> Int {
        try write("record sends") { db in
            for token in tokens {
                try db.cachedStatement(sql: "UPDATE push_devices SET retired_at = ?, retired_reason = ? WHERE token = ? AND retired_at IS NULL")
                    .execute(arguments: [now, token.reason, token.token])
            }
            var changed = 0
            for settlement in settlements {
                let current: NotificationStatus?
                switch settlement.target {
                case .notification(let id):
                    current = try String.fetchOne(db.cachedStatement(sql: "SELECT status FROM push_notifications WHERE id = ?"),
                                                  arguments: [id]).flatMap(NotificationStatus.init(rawValue:))
                case .digest(let id):
                    current = try String.fetchOne(db.cachedStatement(sql: "SELECT status FROM push_digests WHERE id = ?"),
                                                  arguments: [id]).flatMap(NotificationStatus.init(rawValue:))
                }
                guard current == .queued, settlement.status != .queued else { continue }
                try Self.checkTransition(from: .queued, to: settlement.status, what: settlement.target.key)
                try Self.setStatus(db, settlement.target, to: settlement.status, reason: settlement.reason, now: now)
                changed += 1
            }
            return changed
        }
    }
}
