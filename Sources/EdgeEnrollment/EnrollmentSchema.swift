import EdgeStore
import GRDB

/// The clinic station's tables (ENR-7, ENR-11, ENR-12): enrollment's own migration "v6", which
/// every station database carries (`StationSchema` in EdgeStation lists it for every opener).
/// EdgeEnrollment owns every query.
///
/// Nothing here is secret: tokens live in the vault under the enrollment's names, the linking
/// code is kept only masked (`AB-***-*****`, ENR-8), and validation attempts are times only.
public enum EnrollmentSchema {
    /// "v6": the name it shipped under when the schema lived in EdgeStore; never renamed.
    public static let migration = SchemaMigration("v6") { db in try create(db) }

    /// "v9", after the store's "v8" gave holds kinds (issue #28): the holds enrollment made before
    /// get its kinds (`Enrollments.studyStartHold`, `.revokedHold`), and an enrollment left in
    /// STUDY_START_PENDING by a revocation (tokens erased, hold "revoked: ...", the dead end of
    /// issue #28 item 3) is moved to NOT_PARTICIPATING with that cause in its history, so it can
    /// be re-enrolled. Decision: no ENROLLMENT_EVENT is queued for that step: the server revoked
    /// the enrollment and knows; the history says when the station recorded it.
    public static let holdKinds = SchemaMigration("v9") { db in try classifyHolds(db) }

    /// Issue #30: each validation attempt also records when it was on the boot clock
    /// (`BootInstant`), so ENR-7's window is measured on a clock that NTP or an operator cannot
    /// step; rows from before (boot_id NULL) are measured on wall time.
    public static let attemptBootTime = SchemaMigration("enrollment-attempt-boot-time") { db in
        try db.execute(sql: """
            ALTER TABLE enrollment_attempts ADD COLUMN boot_id TEXT;
            ALTER TABLE enrollment_attempts ADD COLUMN boot_at REAL;
            """)
    }

    /// Every migration of enrollment, in order: what a process that links only enrollment passes.
    public static let migrations = [migration, holdKinds, attemptBootTime]

    static func create(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE enrollments (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                state TEXT NOT NULL,
                sponsor_id TEXT NOT NULL,
                masked_code TEXT NOT NULL,
                -- The sponsor backend the code was validated with (masked by design, ENR-4).
                backend_url TEXT NOT NULL,
                -- What the portal answered; NULL until the first successful validation.
                server_enrollment_id TEXT,
                patient_id TEXT,
                sponsor_url TEXT,
                sponsor_display TEXT,
                study_start_required INTEGER,
                created_at REAL NOT NULL,
                updated_at REAL NOT NULL
            );

            CREATE TABLE enrollment_transitions (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                enrollment_id INTEGER NOT NULL REFERENCES enrollments(id),
                from_state TEXT NOT NULL,
                to_state TEXT NOT NULL,
                at REAL NOT NULL,
                cause TEXT NOT NULL
            );
            CREATE INDEX enrollment_transitions_by_enrollment ON enrollment_transitions(enrollment_id, id);

            -- ENR-7: one row per validation attempt sent to a portal, pruned past the window.
            CREATE TABLE enrollment_attempts (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                at REAL NOT NULL
            );
            """)
    }

    static func classifyHolds(_ db: Database) throws {
        func access(_ state: EnrollmentState) -> String {
            "SELECT '\(Enrollment.credentialPrefix)' || id || '.access' FROM enrollments WHERE state = '\(state.rawValue)'"
        }
        let stuck = "SELECT credential FROM credential_holds WHERE reason LIKE 'revoked:%'"
        try db.execute(sql: """
            INSERT INTO enrollment_transitions (enrollment_id, from_state, to_state, at, cause)
                SELECT e.id, e.state, '\(EnrollmentState.notParticipating.rawValue)', (julianday('now') - 2440587.5) * 86400.0,
                       h.reason || ' (recorded when edge was upgraded)'
                FROM enrollments e JOIN credential_holds h ON h.credential = '\(Enrollment.credentialPrefix)' || e.id || '.access'
                WHERE e.state = '\(EnrollmentState.studyStartPending.rawValue)' AND h.reason LIKE 'revoked:%';
            UPDATE enrollments SET state = '\(EnrollmentState.notParticipating.rawValue)', updated_at = (julianday('now') - 2440587.5) * 86400.0
                WHERE state = '\(EnrollmentState.studyStartPending.rawValue)'
                  AND '\(Enrollment.credentialPrefix)' || id || '.access' IN (\(stuck));
            """)
        for (state, kind) in [(EnrollmentState.studyStartPending, Enrollments.studyStartHold), (.notParticipating, Enrollments.revokedHold)] {
            try db.execute(sql: """
                UPDATE credential_holds SET kind = ?, waiting_for = ?, fault = ?, operator_release = ?
                WHERE credential IN (\(access(state)))
                """, arguments: [kind.name, kind.waitingFor, kind.isFault, kind.operatorMayRelease])
        }
    }
}
