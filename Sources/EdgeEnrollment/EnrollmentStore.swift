import EdgeAgent
import EdgeContract
import EdgeCore
import EdgeStore
import FoundationEssentials
import GRDB
import Synchronization

/// What observers hear (ENR-12): the enrollment as it is after a committed change, and the
/// transitions that change added (empty for a change of details only).
public struct EnrollmentChange: StationFact, Hashable {
    public let enrollment: Enrollment
    public let transitions: [EnrollmentTransition]
}

/// The enrollments and their history in the station's database (migration v6), and the
/// observers of every change. Writes take the caller's transaction so that a state change, the
/// outbox entry it causes and the credential hold it needs are one commit (SYN-2, ENR-13).
///
/// Decision: observers hear changes made through this process's store, on the station's fact
/// stream (`facts`: the agent's in `edge run`, a private one in a command); another process
/// (`edge enroll` while `edge run` runs) is seen by the agent on its next read, e.g. the status poll.
public final class EnrollmentStore: Sendable {
    public let database: EdgeDatabase
    public let facts: StationFacts

    public init(database: EdgeDatabase, facts: StationFacts = StationFacts()) {
        self.database = database
        self.facts = facts
    }

    // MARK: Reading

    public func all() throws(EnrollmentError) -> [Enrollment] {
        try read { db in try Row.fetchAll(db, sql: "SELECT * FROM enrollments ORDER BY id").map { try Self.enrollment($0, db) } }
    }

    public func enrollment(_ id: Int64) throws(EnrollmentError) -> Enrollment {
        guard let found = try read({ db in try Self.fetch(db, id) }) else {
            throw EnrollmentError(.notFound, "No enrollment \(id) on this station.", context: ["id": String(id)])
        }
        return found
    }

    static func fetch(_ db: Database, _ id: Int64) throws -> Enrollment? {
        try Row.fetchOne(db, sql: "SELECT * FROM enrollments WHERE id = ?", arguments: [id]).map { try enrollment($0, db) }
    }

    /// The enrollment the server knows as `serverID`, for pulled changes.
    static func fetch(_ db: Database, serverID: String) throws -> Enrollment? {
        try Row.fetchOne(db, sql: "SELECT * FROM enrollments WHERE server_enrollment_id = ? ORDER BY id DESC LIMIT 1",
                         arguments: [serverID]).map { try enrollment($0, db) }
    }

    private static func enrollment(_ row: Row, _ db: Database) throws -> Enrollment {
        let id: Int64 = row["id"]
        let history = try Row.fetchAll(db, sql: "SELECT * FROM enrollment_transitions WHERE enrollment_id = ? ORDER BY id", arguments: [id])
            .compactMap { row -> EnrollmentTransition? in
                guard let from = EnrollmentState(rawValue: row["from_state"]), let to = EnrollmentState(rawValue: row["to_state"]) else { return nil }
                return EnrollmentTransition(from: from, to: to, at: row["at"], cause: row["cause"])
            }
        let state = EnrollmentState(rawValue: row["state"]) ?? .personalUse
        let display: String? = row["sponsor_display"]
        let studyStart: Int? = row["study_start_required"]
        return Enrollment(
            id: id, lifecycle: EnrollmentLifecycle(state: state, history: history), sponsorID: row["sponsor_id"],
            maskedCode: row["masked_code"], backendURL: row["backend_url"], serverEnrollmentID: row["server_enrollment_id"],
            patientID: row["patient_id"], sponsorURL: row["sponsor_url"],
            sponsor: display.flatMap { try? JSONDecoder().decode(SponsorDisplayConfig.self, from: Data($0.utf8)) },
            studyStartRequired: studyStart.map { $0 != 0 }, createdAt: row["created_at"], updatedAt: row["updated_at"])
    }

    // MARK: Writing (inside the caller's transaction)

    /// A new enrollment in PERSONAL_USE with no history yet.
    static func insert(_ db: Database, sponsorID: String, maskedCode: String, backendURL: String, now: Double) throws -> Enrollment {
        try db.execute(sql: """
            INSERT INTO enrollments (state, sponsor_id, masked_code, backend_url, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
            """, arguments: [EnrollmentState.personalUse.rawValue, sponsorID, maskedCode, backendURL, now, now])
        return Enrollment(id: db.lastInsertedRowID, lifecycle: EnrollmentLifecycle(), sponsorID: sponsorID, maskedCode: maskedCode,
                          backendURL: backendURL, createdAt: now, updatedAt: now)
    }

    /// Writes the enrollment's row and the transitions added since `before` was read.
    static func save(_ db: Database, _ enrollment: Enrollment, after before: Enrollment) throws -> EnrollmentChange {
        let display = try enrollment.sponsor.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        try db.execute(sql: """
            UPDATE enrollments SET state = ?, sponsor_id = ?, masked_code = ?, backend_url = ?, server_enrollment_id = ?, patient_id = ?,
                sponsor_url = ?, sponsor_display = ?, study_start_required = ?, updated_at = ? WHERE id = ?
            """, arguments: [enrollment.state.rawValue, enrollment.sponsorID, enrollment.maskedCode, enrollment.backendURL,
                             enrollment.serverEnrollmentID, enrollment.patientID, enrollment.sponsorURL, display,
                             enrollment.studyStartRequired.map { $0 ? 1 : 0 }, enrollment.updatedAt, enrollment.id])
        let added = Array(enrollment.lifecycle.history.dropFirst(before.lifecycle.history.count))
        for transition in added {
            try db.execute(sql: "INSERT INTO enrollment_transitions (enrollment_id, from_state, to_state, at, cause) VALUES (?, ?, ?, ?, ?)",
                           arguments: [enrollment.id, transition.from.rawValue, transition.to.rawValue, transition.at, transition.cause])
        }
        return EnrollmentChange(enrollment: enrollment, transitions: added)
    }

    // MARK: Validation attempts (ENR-7)

    /// Counts an attempt against the window, or refuses with the cooldown left when the window
    /// is full. One transaction, so two processes starting at once cannot both take the fifth.
    /// `boot`: the same moment on the boot clock, which measures the window (issue #30).
    func takeAttempt(now: Double, boot: BootInstant, limit: Int, window: Double) throws(EnrollmentError) {
        let cooldown: Int? = try write { db -> Int? in
            let ages = try Self.ages(db, now: now, boot: boot)
            let expired = ages.filter { $0.age >= window }.map(\.id)
            if !expired.isEmpty {
                try db.execute(sql: "DELETE FROM enrollment_attempts WHERE id IN (\(expired.map(String.init).joined(separator: ",")))")
            }
            if let cooldown = Self.cooldown(ages, limit: limit, window: window) { return cooldown }
            try db.execute(sql: "INSERT INTO enrollment_attempts (at, boot_id, boot_at) VALUES (?, ?, ?)", arguments: [now, boot.bootID, boot.seconds])
            return nil
        }
        if let cooldown { throw EnrollmentError.rateLimited(retryAfter: cooldown) }
    }

    /// Seconds until the window has room for another attempt, or nil when it has room now: what
    /// a screen opened in the middle of a cooldown shows. Counts nothing.
    func attemptCooldown(now: Double, boot: BootInstant, limit: Int, window: Double) throws(EnrollmentError) -> Int? {
        try read { db in Self.cooldown(try Self.ages(db, now: now, boot: boot), limit: limit, window: window) }
    }

    /// Every attempt's age in seconds: on the boot clock when it was made on this boot, so a wall
    /// clock stepped forward cannot empty the window nor one stepped back stretch it; else (an
    /// earlier boot, a row from before the boot clock) on wall time, an attempt "in the future"
    /// (the clock went back since) counted as made now.
    private static func ages(_ db: Database, now: Double, boot: BootInstant) throws -> [(id: Int64, age: Double)] {
        try Row.fetchAll(db, sql: "SELECT id, at, boot_id, boot_at FROM enrollment_attempts").map { row in
            let id: Int64 = row["id"]
            if let bootID: String = row["boot_id"], let bootAt: Double = row["boot_at"],
               let age = boot.since(BootInstant(bootID: bootID, seconds: bootAt)) {
                return (id, max(0, age))
            }
            let at: Double = row["at"]
            return (id, max(0, now - at))
        }
    }

    /// The window is full when it holds `limit` attempts; it has room again when the oldest of
    /// the last `limit` leaves it (at least 1 s from now, so a countdown never shows 0:00).
    private static func cooldown(_ ages: [(id: Int64, age: Double)], limit: Int, window: Double) -> Int? {
        let inWindow = ages.map(\.age).filter { $0 < window }.sorted()
        guard limit > 0, inWindow.count >= limit else { return nil }
        return max(1, Int((window - inWindow[limit - 1]).rounded(.up)))
    }

    // MARK: Transactions and observers

    func read<T>(_ body: (Database) throws -> T) throws(EnrollmentError) -> T {
        do {
            return try database.dbWriter.read(body)
        } catch let error as EnrollmentError {
            throw error
        } catch {
            throw EnrollmentError(.store, "The enrollment store could not be read: \(error)")
        }
    }

    func write<T>(_ body: (Database) throws -> T) throws(EnrollmentError) -> T {
        do {
            return try database.dbWriter.write(body)
        } catch let error as EnrollmentError {
            throw error
        } catch {
            throw EnrollmentError(.store, "The enrollment store could not record the change: \(error)")
        }
    }

    /// Every committed change from now on, in order, until the stream is dropped.
    public func changes() -> AsyncCompactMapSequence<StationFacts.Subscription, EnrollmentChange> {
        facts.subscribe().compactMap { $0 as? EnrollmentChange }
    }

    /// Tells observers; called after the transaction committed.
    func publish(_ changes: [EnrollmentChange]) {
        for change in changes { facts.publish(change) }
    }
}
