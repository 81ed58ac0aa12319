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
}
