import EdgeEnrollment
import EdgeReceiving
import EdgeStation
import EdgeStore
import EdgeTestSupport
import Foundation
import GRDB
import XCTest

/// The station's one schema history and one export document, with the capabilities' parts where
/// the capabilities are (issue #27 item 5): enrollment's "v6" and receiving's "v7" after the
/// store's own, whoever opened the file first; a version-1 document written while the store
/// still held every table imports unchanged.
final class StationSchemaTests: XCTestCase {
    private var directories: [TemporaryDirectory] = []

    private func path() throws -> String {
        let directory = try TemporaryDirectory(prefix: "edge-schema")
        directories.append(directory)
        return directory.path + "/edge.sqlite"
    }

    private static func migrations(_ database: EdgeDatabase) throws -> [String] {
        try database.dbWriter.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid") }
    }

    func testAStationDatabaseHasTheCapabilitiesTablesAfterTheStoresOwn() throws {
        let database = try EdgeDatabase(path: try path(), migrations: StationSchema.migrations)
        // "v8" is the store's (hold kinds), "v9" enrollment's second (its holds' kinds),
        // "receiving-receipts" receiving's second (receipts in progress, vendor names).
        XCTAssertEqual(try Self.migrations(database), ["v1", "v2", "v3", "v4", "v5", "v8", "v6", "v7", "v9", "receiving-receipts", "receiving-receipt-tracking", "enrollment-attempt-boot-time"])
        let tables = try database.dbWriter.read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'") }
        for table in ["enrollments", "enrollment_transitions", "enrollment_attempts",
                      "receiving_orders", "receiving_grns", "receiving_photos", "receiving_grn_photos",
                      "receiving_receipts", "receiving_receipt_lines", "receiving_receipt_counts", "receiving_receipt_photos", "receiving_vendor_names"] {
            XCTAssertTrue(tables.contains(table), "missing table \(table) in \(tables)")
        }
    }

    /// `edge status` opens the store alone; the next station process adds the capabilities'
    /// migrations after the store's, in the same order as on a file `edge run` created.
    func testAFileTheStoreCreatedAloneGetsTheSameHistory() throws {
        let file = try path()
        XCTAssertEqual(try Self.migrations(try EdgeDatabase(path: file)), ["v1", "v2", "v3", "v4", "v5", "v8"])
        XCTAssertEqual(try Self.migrations(try EdgeDatabase(path: file, migrations: StationSchema.migrations)),
                       ["v1", "v2", "v3", "v4", "v5", "v8", "v6", "v7", "v9", "receiving-receipts", "receiving-receipt-tracking", "enrollment-attempt-boot-time"])
        // And the store alone opens it again without touching what it does not know.
        XCTAssertEqual(try Self.migrations(try EdgeDatabase(path: file)).count, 12)
    }

    /// Written by hand in the shape `edge export` wrote before the sections moved out of the
    /// store (every list a top-level key, models/station-export.schema.json).
    static let versionOneDocument = """
        {"format": "edge-station-export", "version": 1, "exported_at": 1764270000, "edge_version": "0.4.0",
         "outbox": [{"stream": "enrollment:7", "kind": "CLINIC_NOTE", "payload": "eyJub3RlIjogMX0=", "idempotency_key": "k-1",
                     "sequence": 3, "created_at": "2026-11-27T20:00:00+00:00", "attempts": 0, "next_attempt_at": 0,
                     "credential": "enrollment.7.access"}],
         "dead_letters": [], "conflicts": [],
         "credential_holds": [{"credential": "enrollment.7.access", "reason": "STUDY_START_PENDING", "since": 1764260000}],
         "enrollments": [{"id": 7, "state": "STUDY_START_PENDING", "sponsor_id": "sponsor-ab", "masked_code": "AB-***-*****",
                          "backend_url": "https://ab.invalid", "server_enrollment_id": "enr-1", "created_at": 1764250000,
                          "updated_at": 1764260000,
                          "transitions": [{"from_state": "PERSONAL_USE", "to_state": "STUDY_START_PENDING", "at": 1764260000, "cause": "linked"}]}],
         "enrollment_attempts": [1764250000.5],
         "orders": [{"po_number": "PO-2026-00042", "payload": "e30=", "fetched_at": 1764250000}],
         "photos": [{"sha256": "\(String(repeating: "ab", count: 32))", "bytes": 1000, "width": 640, "height": 480,
                     "created_at": 1764250000, "attempts": 0, "next_attempt_at": 0}],
         "grns": [{"idempotency_key": "grn-1", "po_number": "PO-2026-00042", "payload": "e30=", "order_before": "e30=",
                   "created_at": 1764250000, "offline": false, "status": "queued", "photos": ["\(String(repeating: "ab", count: 32))"]}],
         "push_users": [], "push_devices": [], "push_digests": [], "push_notifications": [], "push_badges": []}
        """

    func testAVersionOneDocumentImportsIntoTheCapabilitiesTables() throws {
        let sections = StationSchema.archiveSections
        let archive = try StationImport.decode(Array(Self.versionOneDocument.utf8), sections: sections)
        let database = try EdgeDatabase(path: try path(), migrations: StationSchema.migrations)
        // The new station has an enrollment of its own: the imported one becomes 2, and so do its names.
        try database.dbWriter.write { db in
            try db.execute(sql: """
                INSERT INTO enrollments (state, sponsor_id, masked_code, backend_url, created_at, updated_at)
                VALUES ('PERSONAL_USE', 'sponsor-cd', 'CD-***-*****', 'https://cd.invalid', 900, 900)
                """)
        }
        let report = try StationImport.apply(archive, to: database, sections: sections)
        for table in ["enrollments", "enrollment_transitions", "enrollment_attempts", "receiving_orders", "receiving_photos",
                      "receiving_grns", "outbox", "credential_holds"] {
            XCTAssertEqual(report.count(table)?.imported, 1, table)
        }
        let (stream, credential, hold) = try database.dbWriter.read { db in
            (try String.fetchOne(db, sql: "SELECT stream FROM outbox"), try String.fetchOne(db, sql: "SELECT credential FROM outbox"),
             try String.fetchOne(db, sql: "SELECT credential FROM credential_holds"))
        }
        XCTAssertEqual(stream, "enrollment:2")
        XCTAssertEqual(credential, "enrollment.2.access")
        XCTAssertEqual(hold, "enrollment.2.access")
        // Exported again, it is the same shape (the schema's required keys, no others).
        let again = try StationExport.archive(of: database, sections: sections, edgeVersion: "test")
        XCTAssertEqual(Set(again.sections.keys), ["enrollments", "enrollment_attempts", "orders", "photos", "grns"])
        XCTAssertEqual(try again.rows("grns", as: ReceivingArchive.GRNRow.self).first?.photos, [String(repeating: "ab", count: 32)])
    }

    func testADocumentWithoutTheCapabilitiesSectionsIsRefusedWhenItsNamesPointAtThem() throws {
        // A hold on enrollment 7 with no enrollment 7 in the document: the enrollment section refuses it.
        var document = Self.versionOneDocument
        document = document.replacingOccurrences(of: #""enrollments": [{"id": 7"#, with: #""enrollments": [{"id": 8"#)
        XCTAssertThrowsError(try StationImport.decode(Array(document.utf8), sections: StationSchema.archiveSections)) { error in
            XCTAssertEqual((error as? StationArchiveError)?.code, .invalidDocument)
            XCTAssertTrue((error as? StationArchiveError)?.message.contains("names enrollment 7") == true, "\(error)")
        }
    }
}
