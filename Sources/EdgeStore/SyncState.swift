import FoundationEssentials
import GRDB

/// The sender's persisted state, credential holds and pull cursors (SYN-7, SYN-9, ENR-10).
/// Every change is one transaction; cursors are written inside the caller's, with the changes
/// they cover.
public struct SyncState: Sendable {
    public let database: EdgeDatabase

    public init(database: EdgeDatabase) {
        self.database = database
    }

    // MARK: Sender

    public func sender() throws(StoreError) -> SenderState {
        try database.perform("read the sender state") { try database.dbWriter.read { db in try sender(db) } }
    }

    func sender(_ db: Database) throws -> SenderState {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM sender_state WHERE id = 1") else {
            throw StoreError(.databaseFailure, "The sync database \(database.path) has no sender state.", context: ["path": database.path])
        }
        return SenderState(row: row)
    }

    /// An answer settled an entry: the backend is reachable, so failures and any pause end.
    public func recordSuccess(now: Double) throws(StoreError) {
        try database.perform("record a successful send") {
            try database.dbWriter.write { db in try recordSuccess(db, now: now) }
        }
    }

    /// The same, inside the caller's transaction (with the entry's completion).
    public func recordSuccess(_ db: Database, now: Double) throws {
        // Changes no row in the common case, so the sender state adds no page to the commit.
        try db.execute(sql: """
            UPDATE sender_state SET consecutive_failures = 0, paused_until = NULL, pause_reason = NULL, updated_at = ?
            WHERE id = 1 AND (consecutive_failures <> 0 OR paused_until IS NOT NULL)
            """, arguments: [now])
    }

    /// Counts a retryable failure; at `pauseAfter` in a row, pauses sending for `pauseSeconds`.
    /// Returns the new state.
    @discardableResult
    public func recordFailure(_ description: String, now: Double, pauseAfter: Int, pauseSeconds: Double) throws(StoreError) -> SenderState {
        try database.perform("record a failed send") {
            try database.dbWriter.write { db in
                try db.execute(sql: """
                    UPDATE sender_state SET consecutive_failures = consecutive_failures + 1,
                                            last_failure = ?, last_failure_at = ?, updated_at = ?
                    WHERE id = 1
                    """, arguments: [description, now, now])
                let state = try sender(db)
                guard state.consecutiveFailures >= pauseAfter, state.pausedUntil == nil || !state.isPaused(now: now) else {
                    return state
                }
                try db.execute(sql: "UPDATE sender_state SET paused_until = ?, pause_reason = ? WHERE id = 1",
                               arguments: [now + pauseSeconds,
                                           "\(state.consecutiveFailures) consecutive failures, the last: \(description)"])
                return try sender(db)
            }
        }
    }

    /// Ends a pause (a manual `edge sync run`, a connectivity change) and starts counting afresh.
    public func resume(now: Double) throws(StoreError) {
        try database.perform("resume sending") {
            try database.dbWriter.write { db in
                try db.execute(sql: """
                    UPDATE sender_state SET consecutive_failures = 0, paused_until = NULL, pause_reason = NULL, updated_at = ?
                    WHERE id = 1
                    """, arguments: [now])
            }
        }
    }

    /// The server answered 426 to `appVersion`.
    public func setUpgradeRequired(appVersion: String, message: String, now: Double) throws(StoreError) {
        try database.perform("record that an upgrade is required") {
            try database.dbWriter.write { db in
                try db.execute(sql: "UPDATE sender_state SET upgrade_required_version = ?, upgrade_message = ?, updated_at = ? WHERE id = 1",
                               arguments: [appVersion, message, now])
            }
        }
    }

    public func clearUpgradeRequired(now: Double) throws(StoreError) {
        try database.perform("clear the upgrade notice") {
            try database.dbWriter.write { db in
                try db.execute(sql: "UPDATE sender_state SET upgrade_required_version = NULL, upgrade_message = NULL, updated_at = ? WHERE id = 1",
                               arguments: [now])
            }
        }
    }

    // MARK: Credential holds

    /// Holds a credential's entries. `tokenFingerprint` (a keyed hash, never the token) lets the
    /// sender release the hold once the vault holds a different token (AGT-6); `kind` is the
    /// holder's declaration (`HoldKind`), replaced with the reason when the hold is written again.
    public func hold(credential: String, reason: String, tokenFingerprint: String? = nil, kind: HoldKind = .credential,
                     now: Double) throws(StoreError) {
        try Outbox.validateName(credential, field: "credential")
        try database.perform("hold a credential's entries") {
            try database.dbWriter.write { db in
                try hold(db, credential: credential, reason: reason, tokenFingerprint: tokenFingerprint, kind: kind, now: now)
            }
        }
    }

    /// The same inside a caller's transaction (ENR-13: a hold written with the state change that needs it).
    public func hold(_ db: Database, credential: String, reason: String, tokenFingerprint: String? = nil, kind: HoldKind = .credential,
                     now: Double) throws {
        try db.execute(sql: """
            INSERT INTO credential_holds (credential, reason, since, token_fingerprint, kind, waiting_for, fault, operator_release)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(credential) DO UPDATE SET reason = excluded.reason, token_fingerprint = excluded.token_fingerprint,
                kind = excluded.kind, waiting_for = excluded.waiting_for, fault = excluded.fault, operator_release = excluded.operator_release
            """, arguments: [credential, reason, now, tokenFingerprint, kind.name, kind.waitingFor, kind.isFault, kind.operatorMayRelease])
    }

    /// Releases a hold whatever its kind (its owner's release, e.g. ENR-13's approval); returns
    /// whether there was one.
    @discardableResult
    public func release(credential: String) throws(StoreError) -> Bool {
        try database.perform("release a credential's entries") {
            try database.dbWriter.write { db in try release(db, credential: credential) }
        }
    }

    /// The same inside a caller's transaction.
    @discardableResult
    public func release(_ db: Database, credential: String) throws -> Bool {
        try db.execute(sql: "DELETE FROM credential_holds WHERE credential = ?", arguments: [credential])
        return db.changesCount > 0
    }

    /// An operator's or a new token's release (AGT-6): only a hold whose kind allows it, checked
    /// in the same statement that deletes it, so a hold rewritten meanwhile by its owner (a
    /// Study Start wait) is never released by this. Returns the hold it released, or nil when
    /// there was none it may release.
    @discardableResult
    public func releaseIfOperatorMay(credential: String) throws(StoreError) -> CredentialHold? {
        try database.perform("release a credential's entries") {
            try database.dbWriter.write { db in
                guard let row = try Row.fetchOne(db, sql: "SELECT * FROM credential_holds WHERE credential = ? AND operator_release = 1",
                                                 arguments: [credential]) else { return nil }
                try db.execute(sql: "DELETE FROM credential_holds WHERE credential = ? AND operator_release = 1", arguments: [credential])
                return CredentialHold(row: row)
            }
        }
    }

    /// The hold of one credential, if any.
    public func hold(of credential: String) throws(StoreError) -> CredentialHold? {
        try database.perform("read a credential hold") {
            try database.dbWriter.read { db in
                try Row.fetchOne(db, sql: "SELECT * FROM credential_holds WHERE credential = ?", arguments: [credential]).map(CredentialHold.init(row:))
            }
        }
    }

    public func holds() throws(StoreError) -> [CredentialHold] {
        try database.perform("list credential holds") { try database.dbWriter.read { db in try holds(db) } }
    }

    func holds(_ db: Database) throws -> [CredentialHold] {
        try Row.fetchAll(db, sql: "SELECT * FROM credential_holds ORDER BY credential").map(CredentialHold.init(row:))
    }

    // MARK: Pulled changes

    /// Stores one pulled change inside the caller's transaction; a change id seen before is
    /// ignored (a page re-fetched after a crash). Returns whether it was new.
    @discardableResult
    public func storePulledChange(_ db: Database, id: String, stream: String, kind: String, payload: [UInt8],
                                  changedAt: String, now: Double) throws -> Bool {
        try db.execute(sql: """
            INSERT INTO pulled_changes (change_id, stream, kind, payload, changed_at, received_at) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT(change_id) DO NOTHING
            """, arguments: [id, stream, kind, Data(payload), changedAt, now])
        return db.changesCount > 0
    }

    public func pulledChangeCount() throws(StoreError) -> Int {
        try database.perform("count pulled changes") {
            try database.dbWriter.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM pulled_changes") ?? 0 }
        }
    }

    // MARK: Pull cursors

    /// The server's opaque cursor for `stream` (SYN-9), nil before the first pull.
    public func cursor(_ db: Database, stream: String, scope: String = "") throws -> String? {
        try String.fetchOne(db, sql: "SELECT cursor FROM sync_cursors WHERE stream = ? AND scope = ?", arguments: [stream, scope])
    }

    public func cursor(stream: String, scope: String = "") throws(StoreError) -> String? {
        try database.perform("read a pull cursor") { try database.dbWriter.read { db in try cursor(db, stream: stream, scope: scope) } }
    }

    /// Stores the cursor inside the caller's transaction, with the changes it covers.
    public func setCursor(_ db: Database, _ cursor: String, stream: String, scope: String = "", now: Double) throws {
        try db.execute(sql: """
            INSERT INTO sync_cursors (stream, scope, cursor, updated_at) VALUES (?, ?, ?, ?)
            ON CONFLICT(stream, scope) DO UPDATE SET cursor = excluded.cursor, updated_at = excluded.updated_at
            """, arguments: [stream, scope, cursor, now])
    }

}
