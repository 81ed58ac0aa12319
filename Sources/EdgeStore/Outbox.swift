import FoundationEssentials
import GRDB

/// The durable outbox (SYN-2..4): entries are enqueued inside the caller's transaction, leased
/// per stream in FIFO order by a sender, and end completed, retried, dead-lettered or recorded
/// as conflicts. Every state change is one transaction.
public struct Outbox: Sendable {
    public static let maxPayloadBytes = 256 * 1024
    public static let maxNameBytes = 200
    /// Conflicts are kept 7 days (SYN-7).
    public static let conflictRetention: Double = 7 * 24 * 3600
    /// The hold name of entries enqueued without a credential (the station's own token).
    public static let stationCredential = "station"

    public let database: EdgeDatabase
    public let limits: OutboxLimits

    public init(database: EdgeDatabase, limits: OutboxLimits = .standard) {
        self.database = database
        self.limits = limits
    }

    // MARK: Enqueue

    /// Adds an entry inside the caller's transaction, so it commits or rolls back with the local
    /// change that caused it:
    ///
    ///     try database.dbWriter.write { db in
    ///         try recordScan(db, ...)
    ///         try outbox.enqueue(db, stream: "po/4711", kind: "scan", payload: json)
    ///     }
    ///
    /// `credential` names the vault secret whose token authenticates the entry (an enrollment's);
    /// nil means the station's own.
    ///
    /// Throws `.invalidName`, `.payloadTooLarge`, `.invalidPayload`, or `.full` (nothing written).
    @discardableResult
    public func enqueue(_ db: Database, stream: String, kind: String, payload: [UInt8], credential: String? = nil,
                        now: Double = Date().timeIntervalSince1970) throws(StoreError) -> OutboxEntry {
        try Self.validateName(stream, field: "stream")
        try Self.validateName(kind, field: "kind")
        if let credential {
            try Self.validateName(credential, field: "credential")
            guard credential != Self.stationCredential else {
                throw StoreError(.invalidName, "The credential name \(Self.stationCredential) is reserved for the station's own token; enqueue without a credential instead.",
                                 context: ["field": "credential"])
            }
        }
        try Self.validatePayload(payload, stream: stream)
        return try database.perform("enqueue an entry") {
            // A savepoint keeps the counter and the row together even if the caller forgot the
            // transaction; inside one it simply nests.
            var entry: OutboxEntry?
            try db.inSavepoint {
                let usage = try usage(db)
                try checkRoom(usage, adding: payload.count)
                guard let sequence = try Int64.fetchOne(db, sql: "SELECT next_value FROM sequence_counter WHERE id = 1") else {
                    throw StoreError(.databaseFailure, "The sync database \(database.path) has no sequence counter.",
                                     context: ["path": database.path])
                }
                try db.execute(sql: "UPDATE sequence_counter SET next_value = next_value + 1 WHERE id = 1")
                try db.execute(sql: """
                    INSERT INTO outbox (stream, kind, payload, idempotency_key, sequence, created_at, attempts, next_attempt_at, credential)
                    VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?)
                    """, arguments: [stream, kind, Data(payload), IdempotencyKey.make(), sequence,
                                     LocalTimestamp.string(epochSeconds: now), now, credential])
                entry = try fetchEntry(db, id: db.lastInsertedRowID)
                return .commit
            }
            guard let entry else {
                throw StoreError(.databaseFailure, "The entry just enqueued could not be read back.", context: ["path": database.path])
            }
            return entry
        }
    }

    /// Data overload of `enqueue(_:stream:kind:payload:now:)`.
    @discardableResult
    public func enqueue(_ db: Database, stream: String, kind: String, payload: Data, credential: String? = nil,
                        now: Double = Date().timeIntervalSince1970) throws(StoreError) -> OutboxEntry {
        try enqueue(db, stream: stream, kind: kind, payload: [UInt8](payload), credential: credential, now: now)
    }

    // MARK: Usage

    public func usage() throws(StoreError) -> OutboxUsage {
        try database.perform("read the outbox usage") { try database.dbWriter.read { db in try usage(db) } }
    }

    /// Counts outbox entries and dead letters: both are unsent work that is never dropped.
    public func usage(_ db: Database) throws -> OutboxUsage {
        let row = try Row.fetchOne(db, sql: "SELECT entries, bytes FROM usage_counter WHERE id = 1")
        return OutboxUsage(entries: row?["entries"] ?? 0, bytes: row?["bytes"] ?? 0, limits: limits)
    }

    // MARK: Sending

    /// Leases, for each stream, its oldest entry if it is due, not held by another owner's
    /// unexpired lease and its credential not on hold; at most `limit` entries, oldest first. A
    /// stream whose head is backed off, leased or held contributes nothing, so order within it
    /// holds, and other streams go on (SYN-3).
    /// Re-leasing by the same owner extends its lease. A crashed owner's lease just expires.
    /// A next attempt or lease end beyond `ScheduledWait.longest` is over: the clock went back.
    public func lease(owner: String, now: Double, leaseSeconds: Double, limit: Int) throws(StoreError) -> [OutboxEntry] {
        guard !owner.isEmpty, leaseSeconds > 0, limit > 0 else {
            throw StoreError(.invalidArgument, "A lease needs an owner, a positive duration and a positive limit.",
                             context: ["owner": owner, "leaseSeconds": String(leaseSeconds), "limit": String(limit)])
        }
        return try database.perform("lease entries") {
            try database.dbWriter.write { db in
                let ids = try Int64.fetchAll(db, sql: """
                    SELECT o.id FROM outbox o
                    WHERE o.sequence = (SELECT MIN(h.sequence) FROM outbox h WHERE h.stream = o.stream)
                      AND (o.next_attempt_at <= :now OR o.next_attempt_at > :now + :longest)
                      AND (o.lease_owner IS NULL OR o.lease_owner = :owner OR o.lease_expires_at <= :now OR o.lease_expires_at > :now + :longest)
                      AND COALESCE(o.credential, :station) NOT IN (SELECT credential FROM credential_holds)
                    ORDER BY o.sequence
                    LIMIT :limit
                    """, arguments: ["now": now, "owner": owner, "limit": limit, "station": Self.stationCredential, "longest": ScheduledWait.longest])
                return try ids.map { id in
                    try db.execute(sql: "UPDATE outbox SET lease_owner = ?, lease_expires_at = ? WHERE id = ?",
                                   arguments: [owner, now + leaseSeconds, id])
                    return try fetchEntry(db, id: id)
                }
            }
        }
    }

    /// Makes every backed-off entry due now: an operator's `edge sync run` means "send it all
    /// now", not "send what the backoff allows". Returns how many were waiting.
    @discardableResult
    public func makeAllDue(now: Double) throws(StoreError) -> Int {
        try database.perform("make waiting entries due") {
            try database.dbWriter.write { db in
                try db.execute(sql: "UPDATE outbox SET next_attempt_at = ? WHERE next_attempt_at > ?", arguments: [now, now])
                return db.changesCount
            }
        }
    }

    /// Moves every wait still ahead at `now` (next attempts, lease ends, the sender's pause) by
    /// `step` seconds, in one transaction: the sender's answer to a wall clock stepped back
    /// while it runs (`WallClockStepWatch`), so each wait keeps what remained of it instead of
    /// gaining the step. Returns how many entries moved.
    @discardableResult
    public func moveWaits(by step: Double, after now: Double) throws(StoreError) -> Int {
        try database.perform("move scheduled waits with the clock") {
            try database.dbWriter.write { db in
                try db.execute(sql: "UPDATE outbox SET next_attempt_at = next_attempt_at + ? WHERE next_attempt_at > ?",
                               arguments: [step, now])
                let moved = db.changesCount
                try db.execute(sql: "UPDATE outbox SET lease_expires_at = lease_expires_at + ? WHERE lease_expires_at > ?",
                               arguments: [step, now])
                try db.execute(sql: "UPDATE sender_state SET paused_until = paused_until + ? WHERE paused_until > ?",
                               arguments: [step, now])
                return moved
            }
        }
    }

    /// The server accepted the entry: deletes it.
    public func complete(id: Int64, owner: String) throws(StoreError) {
        try database.perform("complete an entry") { try database.dbWriter.write { db in try complete(db, id: id, owner: owner) } }
    }

    /// Deletes the entry inside the caller's transaction, with any local effect of the answer (SYN-7).
    public func complete(_ db: Database, id: Int64, owner: String) throws {
        _ = try leasedEntry(db, id: id, owner: owner)
        try db.execute(sql: "DELETE FROM outbox WHERE id = ?", arguments: [id])
    }

    /// Releases the lease and schedules the next attempt at `at` (Unix seconds). Transport
    /// failures pass `countAttempt: false` (SYN-7: they do not count against the entry).
    public func retryLater(id: Int64, owner: String, at: Double, error: String, countAttempt: Bool = true) throws(StoreError) {
        try database.perform("reschedule an entry") {
            try database.dbWriter.write { db in
                _ = try leasedEntry(db, id: id, owner: owner)
                try db.execute(sql: """
                    UPDATE outbox SET attempts = attempts + ?, next_attempt_at = ?, last_error = ?,
                                      lease_owner = NULL, lease_expires_at = NULL
                    WHERE id = ?
                    """, arguments: [countAttempt ? 1 : 0, at, error, id])
            }
        }
    }

    /// Moves the entry to the dead letters, keeping its key and sequence; returns the dead letter.
    @discardableResult
    public func deadLetter(id: Int64, owner: String, reason: String,
                           now: Double = Date().timeIntervalSince1970) throws(StoreError) -> DeadLetter {
        try database.perform("dead-letter an entry") {
            try database.dbWriter.write { db in
                let entry = try leasedEntry(db, id: id, owner: owner)
                try db.execute(sql: """
                    INSERT INTO dead_letters (stream, kind, payload, idempotency_key, sequence, created_at, attempts, last_error, reason, dead_at, credential)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [entry.stream, entry.kind, Data(entry.payload), entry.idempotencyKey, entry.sequence,
                                     entry.createdAt, entry.attempts, entry.lastError, reason, now, entry.credential])
                let deadID = db.lastInsertedRowID
                try db.execute(sql: "DELETE FROM outbox WHERE id = ?", arguments: [id])
                guard let row = try Row.fetchOne(db, sql: "SELECT * FROM dead_letters WHERE id = ?", arguments: [deadID]) else {
                    throw notFound("dead letter", deadID)
                }
                return DeadLetter(row: row)
            }
        }
    }

    /// Moves a dead letter back to the outbox with its original key and sequence (so it regains
    /// its place at the head of its stream), due now, attempts reset.
    @discardableResult
    public func requeue(deadLetterID: Int64, now: Double = Date().timeIntervalSince1970) throws(StoreError) -> OutboxEntry {
        try database.perform("re-queue a dead letter") {
            try database.dbWriter.write { db in
                guard let row = try Row.fetchOne(db, sql: "SELECT * FROM dead_letters WHERE id = ?", arguments: [deadLetterID]) else {
                    throw notFound("dead letter", deadLetterID)
                }
                let dead = DeadLetter(row: row)
                try db.execute(sql: """
                    INSERT INTO outbox (stream, kind, payload, idempotency_key, sequence, created_at, attempts, next_attempt_at, last_error, credential)
                    VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?)
                    """, arguments: [dead.stream, dead.kind, Data(dead.payload), dead.idempotencyKey, dead.sequence,
                                     dead.createdAt, now, "re-queued after: " + dead.reason, dead.credential])
                let id = db.lastInsertedRowID
                try db.execute(sql: "DELETE FROM dead_letters WHERE id = ?", arguments: [deadLetterID])
                return try fetchEntry(db, id: id)
            }
        }
    }

    /// The server rejected the entry with 409: it leaves the outbox for the conflict log.
    @discardableResult
    public func recordConflict(id: Int64, owner: String, serverVersion: [UInt8],
                               now: Double = Date().timeIntervalSince1970) throws(StoreError) -> ConflictRecord {
        try database.perform("record a conflict") {
            try database.dbWriter.write { db in
                let entry = try leasedEntry(db, id: id, owner: owner)
                try db.execute(sql: """
                    INSERT INTO conflicts (stream, kind, payload, idempotency_key, sequence, created_at, attempts, server_version, recorded_at, credential)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [entry.stream, entry.kind, Data(entry.payload), entry.idempotencyKey, entry.sequence,
                                     entry.createdAt, entry.attempts, Data(serverVersion), now, entry.credential])
                let conflictID = db.lastInsertedRowID
                try db.execute(sql: "DELETE FROM outbox WHERE id = ?", arguments: [id])
                guard let row = try Row.fetchOne(db, sql: "SELECT * FROM conflicts WHERE id = ?", arguments: [conflictID]) else {
                    throw notFound("conflict", conflictID)
                }
                return ConflictRecord(row: row)
            }
        }
    }

    /// Deletes conflicts recorded before `cutoff` (Unix seconds); returns how many.
    @discardableResult
    public func purgeConflicts(olderThan cutoff: Double) throws(StoreError) -> Int {
        try database.perform("purge old conflicts") {
            try database.dbWriter.write { db in
                try db.execute(sql: "DELETE FROM conflicts WHERE recorded_at < ?", arguments: [cutoff])
                return db.changesCount
            }
        }
    }

    /// Deletes conflicts older than the 7-day retention.
    @discardableResult
    public func purgeExpiredConflicts(now: Double = Date().timeIntervalSince1970) throws(StoreError) -> Int {
        try purgeConflicts(olderThan: now - Self.conflictRetention)
    }

    // MARK: Exchanges and status

    /// Records a successful exchange, inside the caller's transaction (a pull applies its changes
    /// and records the exchange together, SYN-9).
    public func recordExchange(_ db: Database, _ direction: ExchangeDirection, at: Double) throws {
        try db.execute(sql: """
            INSERT INTO exchanges (direction, succeeded_at) VALUES (?, ?)
            ON CONFLICT(direction) DO UPDATE SET succeeded_at = excluded.succeeded_at
            """, arguments: [direction.rawValue, at])
    }

    public func recordExchange(_ direction: ExchangeDirection, at: Double = Date().timeIntervalSince1970) throws(StoreError) {
        try database.perform("record an exchange") { try database.dbWriter.write { db in try recordExchange(db, direction, at: at) } }
    }

    public func deadLetters() throws(StoreError) -> [DeadLetter] {
        try database.perform("list dead letters") {
            try database.dbWriter.read { db in
                try Row.fetchAll(db, sql: "SELECT * FROM dead_letters ORDER BY sequence").map(DeadLetter.init(row:))
            }
        }
    }

    public func conflicts() throws(StoreError) -> [ConflictRecord] {
        try database.perform("list conflicts") {
            try database.dbWriter.read { db in
                try Row.fetchAll(db, sql: "SELECT * FROM conflicts ORDER BY recorded_at, id").map(ConflictRecord.init(row:))
            }
        }
    }

    /// Unsent entries, in sending order within each stream (for `edge sync status --verbose` and tests).
    public func pendingEntries() throws(StoreError) -> [OutboxEntry] {
        try database.perform("list outbox entries") {
            try database.dbWriter.read { db in
                try Row.fetchAll(db, sql: "SELECT * FROM outbox ORDER BY sequence").map(OutboxEntry.init(row:))
            }
        }
    }

    public func status(now: Double = Date().timeIntervalSince1970) throws(StoreError) -> OutboxStatus {
        let state = SyncState(database: database)
        return try database.perform("read the sync status") {
            try database.dbWriter.read { db in
                // created_at carries its own offset; julianday() converts it to UTC, so entries
                // made before a time-zone or DST change still compare correctly.
                let streams = try Row.fetchAll(db, sql: """
                    SELECT s.stream, s.depth, s.oldest, h.last_error, h.next_attempt_at, h.attempts
                    FROM (SELECT stream, COUNT(*) AS depth, MIN(sequence) AS head,
                                 (MIN(julianday(created_at)) - 2440587.5) * 86400.0 AS oldest
                          FROM outbox GROUP BY stream) s
                    JOIN outbox h ON h.sequence = s.head
                    ORDER BY s.stream
                    """).map { row in
                    OutboxStreamStatus(stream: row["stream"], depth: row["depth"],
                                       oldestEntryAge: now - (row["oldest"] as Double? ?? now),
                                       headLastError: row["last_error"], headNextAttemptAt: row["next_attempt_at"],
                                       headAttempts: row["attempts"])
                }
                let exchanges = try Row.fetchAll(db, sql: "SELECT direction, succeeded_at FROM exchanges")
                func lastExchange(_ direction: ExchangeDirection) -> Double? {
                    exchanges.first { ($0["direction"] as String?) == direction.rawValue }?["succeeded_at"]
                }
                return OutboxStatus(
                    streams: streams,
                    oldestEntryAge: streams.map(\.oldestEntryAge).max(),
                    deadLetterCount: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM dead_letters") ?? 0,
                    conflictCount: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM conflicts") ?? 0,
                    lastPush: lastExchange(.push),
                    lastPull: lastExchange(.pull),
                    usage: try usage(db),
                    sender: try state.sender(db),
                    holds: try state.holds(db))
            }
        }
    }

    // MARK: Helpers

    private func fetchEntry(_ db: Database, id: Int64) throws -> OutboxEntry {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM outbox WHERE id = ?", arguments: [id]) else {
            throw notFound("outbox entry", id)
        }
        return OutboxEntry(row: row)
    }

    /// The entry, if `owner` holds its lease. An owner whose lease expired and was taken over
    /// gets `.leaseLost`: the new owner will resend it under the same idempotency key.
    private func leasedEntry(_ db: Database, id: Int64, owner: String) throws -> OutboxEntry {
        let entry = try fetchEntry(db, id: id)
        guard entry.leaseOwner == owner else {
            throw StoreError(.leaseLost, "Outbox entry \(id) is not leased by \(owner).",
                             context: ["id": String(id), "owner": owner, "leaseOwner": entry.leaseOwner ?? ""])
        }
        return entry
    }

    private func notFound(_ what: String, _ id: Int64) -> StoreError {
        StoreError(.notFound, "There is no \(what) with id \(id).", context: ["id": String(id)])
    }

    private func checkRoom(_ usage: OutboxUsage, adding bytes: Int) throws(StoreError) {
        let context = ["entries": String(usage.entries), "maxEntries": String(limits.maxEntries),
                       "bytes": String(usage.bytes), "maxBytes": String(limits.maxBytes), "payloadBytes": String(bytes)]
        if usage.entries + 1 > limits.maxEntries {
            throw StoreError(.full, "The outbox is full: \(usage.entries) of \(limits.maxEntries) entries are waiting to be sent; new work is refused until they are.",
                             context: context)
        }
        if usage.bytes + bytes > limits.maxBytes {
            throw StoreError(.full, "The outbox is full: \(usage.bytes) of \(limits.maxBytes) bytes are waiting to be sent and this entry needs \(bytes) more; new work is refused until they are.",
                             context: context)
        }
    }

    static func validateName(_ name: String, field: String) throws(StoreError) {
        let bytes = name.utf8.count
        guard bytes > 0, bytes <= maxNameBytes else {
            throw StoreError(.invalidName, "The \(field) name must be 1 to \(maxNameBytes) bytes long (it is \(bytes)).",
                             context: ["field": field, "bytes": String(bytes)])
        }
        guard !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw StoreError(.invalidName, "The \(field) name contains control characters.", context: ["field": field])
        }
    }

    static func validatePayload(_ payload: [UInt8], stream: String) throws(StoreError) {
        guard payload.count <= maxPayloadBytes else {
            throw StoreError(.payloadTooLarge, "The payload for stream \(stream) is \(payload.count) bytes; the limit is \(maxPayloadBytes).",
                             context: ["stream": stream, "bytes": String(payload.count), "maxBytes": String(maxPayloadBytes)])
        }
        do {
            _ = try JSONDecoder().decode(JSONShape.self, from: Data(payload))
        } catch {
            throw StoreError(.invalidPayload, "The payload for stream \(stream) is not valid JSON.",
                             context: ["stream": stream, "bytes": String(payload.count)])
        }
    }
}
