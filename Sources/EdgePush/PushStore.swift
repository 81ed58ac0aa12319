import EdgeStore
import GRDB

/// The relay's durable state (PSH-2, PSH-4, PSH-5, PSH-11) in the agent's database (tables of
/// migration "v3"). Every change is one transaction, so a restart finds each notification in
/// exactly one state: nothing held is lost, nothing is released twice.
public struct PushStore: Sendable {
    /// Records are kept 90 days (PSH-11).
    public static let retentionSeconds: Int64 = 90 * 24 * 3600
    /// At most 3 active devices per user (PSH-2).
    public static let maxActiveDevices = 3
    /// Digests are spread over this many seconds after the window ends (PSH-4).
    public static let defaultReleaseSpreadSeconds: Int64 = 300
    public static let maxTokenBytes = 4096

    public let database: EdgeDatabase
    /// The zone of users without one (PSH-3).
    public let stationZone: String
    public let zones: TimeZoneDatabase

    /// Throws when `stationZone` is not a readable zone: every user without a zone depends on it.
    public init(database: EdgeDatabase, stationZone: String, zones: TimeZoneDatabase = .system) throws(PushError) {
        _ = try zones.rules(for: stationZone)
        self.database = database
        self.stationZone = stationZone
        self.zones = zones
    }

    // MARK: Preferences (PSH-2)

    /// Stores `preferences`, replacing the user's previous ones. Throws `.unknownZone` /
    /// `.invalidZoneFile` when the zone cannot be used, so a bad zone is refused when configured,
    /// not discovered at night.
    public func savePreferences(_ preferences: PushPreferences, now: Int64) throws(PushError) {
        if let zone = preferences.timeZone { _ = try zones.rules(for: zone) }
        try write("save push preferences") { db in
            try db.execute(sql: """
                INSERT INTO push_users (user_id, push_enabled, time_zone, quiet_start, quiet_end, override_types, disabled_types, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(user_id) DO UPDATE SET push_enabled = excluded.push_enabled, time_zone = excluded.time_zone,
                    quiet_start = excluded.quiet_start, quiet_end = excluded.quiet_end, override_types = excluded.override_types,
                    disabled_types = excluded.disabled_types, updated_at = excluded.updated_at
                """, arguments: [preferences.userID, preferences.pushEnabled, preferences.timeZone,
                                 preferences.quietHours.start.minuteOfDay, preferences.quietHours.end.minuteOfDay,
                                 Self.encode(preferences.overrideTypes), Self.encode(preferences.disabledTypes), now])
        }
    }

    /// The user's preferences; the defaults (push on, station zone, 22:00-07:00, approvals
    /// override) for a user who never set any.
    public func preferences(for userID: String) throws(PushError) -> PushPreferences {
        try PushPreferences.validateUserID(userID)
        return try read("read push preferences") { db in try Self.preferences(db, userID: userID) }
    }

    private static func preferences(_ db: Database, userID: String) throws -> PushPreferences {
        let statement = try db.cachedStatement(sql: "SELECT * FROM push_users WHERE user_id = ?")
        guard let row = try Row.fetchOne(statement, arguments: [userID]) else { return try PushPreferences(userID: userID) }
        return try preferences(row)
    }

    // MARK: Devices (PSH-2)

    /// Registers `token` for the user. A token already known (this or another user's, active or
    /// retired) is moved to this user and made active and newest. When that makes more than 3
    /// active devices, the oldest registrations are retired.
    @discardableResult
    public func registerDevice(userID: String, token: String, platform: DevicePlatform, now: Int64) throws(PushError) -> PushDevice {
        try PushPreferences.validateUserID(userID)
        guard !token.isEmpty, token.utf8.count <= Self.maxTokenBytes, !token.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else {
            throw PushError(.invalidArgument, "A device token must be 1 to \(Self.maxTokenBytes) bytes without spaces or control characters.",
                            context: ["field": "token", "bytes": String(token.utf8.count)])
        }
        return try write("register a device") { db in
            try db.execute(sql: """
                INSERT INTO push_devices (user_id, token, platform, registered_at) VALUES (?, ?, ?, ?)
                ON CONFLICT(token) DO UPDATE SET user_id = excluded.user_id, platform = excluded.platform,
                    registered_at = excluded.registered_at, retired_at = NULL, retired_reason = NULL
                """, arguments: [userID, token, platform.rawValue, now])
            // Newest first by registration time, then id (two registrations in one second).
            try db.execute(sql: """
                UPDATE push_devices SET retired_at = ?, retired_reason = 'replaced by a newer device'
                WHERE id IN (SELECT id FROM push_devices WHERE user_id = ? AND retired_at IS NULL
                             ORDER BY registered_at DESC, id DESC LIMIT -1 OFFSET ?)
                """, arguments: [now, userID, Self.maxActiveDevices])
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM push_devices WHERE token = ?", arguments: [token]) else {
                throw PushError(.databaseFailure, "The device just registered could not be read back.", context: ["user": userID])
            }
            return try Self.device(row)
        }
    }

    /// The user's active devices, newest first.
    public func activeDevices(for userID: String) throws(PushError) -> [PushDevice] {
        try read("read devices") { db in try Self.activeDevices(db, userID: userID) }
    }

    private static func activeDevices(_ db: Database, userID: String) throws -> [PushDevice] {
        let rows = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT * FROM push_devices WHERE user_id = ? AND retired_at IS NULL ORDER BY registered_at DESC, id DESC
            """), arguments: [userID])
        var devices: [PushDevice] = []
        for row in rows { devices.append(try device(row)) }
        return devices
    }

    /// Retires a token (the sender prunes UNREGISTERED ones, PSH-9). Returns whether it was active.
    @discardableResult
    public func retireDevice(token: String, reason: String, now: Int64) throws(PushError) -> Bool {
        try write("retire a device") { db in
            try db.execute(sql: "UPDATE push_devices SET retired_at = ?, retired_reason = ? WHERE token = ? AND retired_at IS NULL",
                           arguments: [now, reason, token])
            return db.changesCount > 0
        }
    }

    // MARK: Intake and decisions (PSH-3, PSH-4)

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
        let insert = try db.cachedStatement(sql: """
            INSERT INTO push_notifications (user_id, type, priority, title, body, deep_link, ttl_seconds, created_at, expires_at,
                status, reason, tag, held_until, counted_in_badge, received_at, held_at, queued_at, failed_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '', ?, ?, ?, ?, ?, ?, ?)
            """)
        try insert.execute(arguments: [notification.userID, notification.type.rawValue, notification.priority.rawValue, notification.title,
                                       notification.body, notification.deepLink, notification.ttlSeconds, notification.createdAt,
                                       notification.expiresAt, status.rawValue, reason, heldUntil, counted, now,
                                       status == .held ? now : nil, status == .queued ? now : nil, status == .failed ? now : nil, now])
        let id = db.lastInsertedRowID
        // The tag is fixed once, from the record id, so every retry carries the same one (PSH-6).
        try db.cachedStatement(sql: "UPDATE push_notifications SET tag = 'n-' || id WHERE id = ?").execute(arguments: [id])
        if counted { try Self.countInBadge(db, userID: notification.userID, type: notification.type, delta: 1, now: now) }
        let record = NotificationRecord(id: id, notification: notification, status: status, reason: reason, heldUntil: heldUntil, now: now)
        return AcceptedNotification(record: record, decision: decision, badge: try Self.badge(db, userID: notification.userID))
    }

    // MARK: Release (PSH-4)

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

    // MARK: Status (PSH-11)

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

    // MARK: Sending (PSH-7, PSH-10, PSH-11)

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

    private static func chunks(_ ids: [Int64]) -> [ArraySlice<Int64>] {
        stride(from: 0, to: ids.count, by: 500).map { ids[$0 ..< min($0 + 500, ids.count)] }
    }

    private static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }

    /// Notification and digest rows with their users' active devices and badges.
    private static func dispatches(_ db: Database, notifications: [Row], digests: [Row]) throws -> [PushDispatch] {
        var users: [String: (devices: [PushDevice], badge: Int)] = [:]
        func forUser(_ userID: String) throws -> (devices: [PushDevice], badge: Int) {
            if let known = users[userID] { return known }
            let found = (try activeDevices(db, userID: userID), try badge(db, userID: userID))
            users[userID] = found
            return found
        }
        var dispatches: [PushDispatch] = []
        dispatches.reserveCapacity(notifications.count + digests.count)
        for row in notifications {
            let record = try NotificationRecord(row: row)
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

    // MARK: Badge (PSH-5)

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
        return try Self.badge(db, userID: userID)
    }

    // MARK: Retention and metrics (PSH-11)

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

    // MARK: Helpers

    private func write<T>(_ action: String, _ body: (Database) throws -> T) throws(PushError) -> T {
        do {
            return try database.dbWriter.write { db in try body(db) }
        } catch {
            throw Self.wrap(error, action)
        }
    }

    private func read<T>(_ action: String, _ body: (Database) throws -> T) throws(PushError) -> T {
        do {
            return try database.dbWriter.read { db in try body(db) }
        } catch {
            throw Self.wrap(error, action)
        }
    }

    private func records(_ action: String, sql: String, _ arguments: StatementArguments) throws(PushError) -> [NotificationRecord] {
        let rows = try read(action) { db in try Row.fetchAll(db, sql: sql, arguments: arguments) }
        var records: [NotificationRecord] = []
        for row in rows { records.append(try NotificationRecord(row: row)) }
        return records
    }

    private static func wrap(_ error: any Error, _ action: String) -> PushError {
        if let pushError = error as? PushError { return pushError }
        return PushError(.databaseFailure, "The push store reported an error while trying to \(action).",
                         context: ["action": action, "sqlite": String(describing: error)])
    }

    private static func checkTransition(from: NotificationStatus, to: NotificationStatus, what: String) throws(PushError) {
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
    private static func setStatus(_ db: Database, _ target: PushTarget, to status: NotificationStatus, reason: String?,
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

    private static func setStatus(_ db: Database, notificationIDs: [Int64], status: NotificationStatus, reason: String?,
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

    /// Adds `delta` to the user's unread count, or to pending approvals for APPROVAL_PENDING;
    /// clamped at 0 (PSH-5: never negative, whatever order events arrive in).
    private static func countInBadge(_ db: Database, userID: String, type: NotificationType, delta: Int, now: Int64) throws {
        try db.cachedStatement(sql: "INSERT INTO push_badges (user_id, updated_at) VALUES (?, ?) ON CONFLICT(user_id) DO NOTHING")
            .execute(arguments: [userID, now])
        let column = type == .approvalPending ? "pending_approvals" : "unread"
        try db.cachedStatement(sql: "UPDATE push_badges SET \(column) = MAX(0, \(column) + ?), updated_at = ? WHERE user_id = ?")
            .execute(arguments: [delta, now, userID])
    }

    private static func badge(_ db: Database, userID: String) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT pending_approvals + unread FROM push_badges WHERE user_id = ?"), arguments: [userID]) ?? 0
    }

    private static func record(_ db: Database, id: Int64) throws -> NotificationRecord {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM push_notifications WHERE id = ?"), arguments: [id]) else {
            throw PushError(.notFound, "There is no push notification record \(id).", context: ["id": String(id)])
        }
        return try NotificationRecord(row: row)
    }

    private static func digest(_ db: Database, id: Int64) throws -> PushDigest {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM push_digests WHERE id = ?", arguments: [id]) else {
            throw PushError(.notFound, "There is no push digest \(id).", context: ["id": String(id)])
        }
        return try PushDigest(row: row)
    }

    private static func device(_ row: Row) throws(PushError) -> PushDevice {
        guard let platform = DevicePlatform(rawValue: row["platform"]) else {
            throw PushError(.databaseFailure, "A device has a platform this edge does not know.", context: ["user": row["user_id"] ?? ""])
        }
        return PushDevice(id: row["id"], userID: row["user_id"], token: row["token"], platform: platform,
                          registeredAt: row["registered_at"], retiredAt: row["retired_at"], retiredReason: row["retired_reason"])
    }

    private static func preferences(_ row: Row) throws(PushError) -> PushPreferences {
        let quiet = try QuietHours(start: TimeOfDay(minuteOfDay: row["quiet_start"]), end: TimeOfDay(minuteOfDay: row["quiet_end"]))
        return try PushPreferences(userID: row["user_id"], pushEnabled: row["push_enabled"], timeZone: row["time_zone"],
                                   quietHours: quiet, overrideTypes: decode(row["override_types"]),
                                   disabledTypes: decode(row["disabled_types"]))
    }

    /// Sorted, so the stored text is stable.
    private static func encode(_ types: Set<NotificationType>) -> String {
        types.map(\.rawValue).sorted().joined(separator: ",")
    }

    /// Unknown names (a type a newer edge wrote) are skipped, not fatal.
    private static func decode(_ text: String) -> Set<NotificationType> {
        Set(text.split(separator: ",").compactMap { NotificationType(rawValue: String($0)) })
    }
}
