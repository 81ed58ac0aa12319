import EdgeEnrollment
import EdgePush
import EdgeReceiving
import EdgeStation
import EdgeStore
import EdgeTestSupport
import Foundation
import GRDB
import XCTest

/// Station replacement (issue #16, item 7): a populated station exported (the store's rows and
/// every capability's section, `StationSchema.archiveSections`) and imported into a new one, table by table; a second import adds nothing; tampered, oversized, newer and
/// conflicting documents are refused with nothing written.
final class StationExportTests: XCTestCase {
    /// Kept until the test case goes: each removes its directory when released.
    private var directories: [TemporaryDirectory] = []

    /// A database path in a fresh directory, with every capability's tables (as a station has).
    private func stationDatabase() throws -> EdgeDatabase {
        let directory = try TemporaryDirectory(prefix: "edge-export")
        directories.append(directory)
        return try EdgeDatabase(path: directory.path + "/edge.sqlite", migrations: StationSchema.migrations)
    }

    // MARK: Populating a station

    /// Outbox, dead letter, conflict and hold through Outbox and SyncState; push preferences,
    /// devices, a notification and a badge through PushStore. Enrollments and the receiving
    /// ledger are written with the statements EnrollmentStore and ReceivingDock use (their
    /// modules need a portal or backend to create rows; the CLI test links a real enrollment).
    private func populatedStation() throws -> EdgeDatabase {
        let database = try stationDatabase()
        let outbox = Outbox(database: database)
        try database.dbWriter.write { db in
            try db.execute(sql: """
                INSERT INTO enrollments (state, sponsor_id, masked_code, backend_url, server_enrollment_id, patient_id, sponsor_url,
                    sponsor_display, study_start_required, created_at, updated_at)
                VALUES ('ENROLLED', 'sponsor-ab', 'AB-***-*****', 'https://ab.invalid', 'enr-ab-0001', 'p-1', 'https://ab.invalid/s', '{"name":"AB"}', 1, 100.5, 200.25)
                """)
            let id = db.lastInsertedRowID
            for (from, to, at) in [("PERSONAL_USE", "LINKING_PENDING", 100.5), ("LINKING_PENDING", "STUDY_START_PENDING", 101.0),
                                   ("STUDY_START_PENDING", "ENROLLED", 200.25)] {
                try db.execute(sql: "INSERT INTO enrollment_transitions (enrollment_id, from_state, to_state, at, cause) VALUES (?, ?, ?, ?, 'test')",
                               arguments: [id, from, to, at])
            }
            try db.execute(sql: "INSERT INTO enrollment_attempts (at) VALUES (100.25)")
            try outbox.enqueue(db, stream: "enrollment:\(id)", kind: "ENROLLMENT_EVENT", payload: Array(#"{"event":"a"}"#.utf8),
                               credential: "enrollment.\(id).access", now: 300)
            try outbox.enqueue(db, stream: "grn:PO-1", kind: "grn.confirm", payload: Array(#"{"po":"PO-1","lines":[1]}"#.utf8), now: 301)
            try outbox.enqueue(db, stream: "po/2", kind: "scan", payload: Array(#"{"dead":true}"#.utf8), now: 302)
            try outbox.enqueue(db, stream: "po/3", kind: "scan", payload: Array(#"{"conflict":true}"#.utf8), now: 303)
            try db.execute(sql: "INSERT INTO receiving_orders (po_number, payload, fetched_at) VALUES ('PO-1', ?, 310)", arguments: [Data(#"{"po_number":"PO-1"}"#.utf8)])
            let sha = String(repeating: "ab", count: 32)
            try db.execute(sql: "INSERT INTO receiving_photos (sha256, bytes, width, height, created_at, attempts, next_attempt_at) VALUES (?, 10, 2, 3, 311, 0, 311)",
                           arguments: [sha])
            let grnKey = try String.fetchOne(db, sql: "SELECT idempotency_key FROM outbox WHERE stream = 'grn:PO-1'") ?? ""
            try db.execute(sql: """
                INSERT INTO receiving_grns (idempotency_key, po_number, payload, order_before, created_at, offline, status) VALUES (?, 'PO-1', ?, ?, 312, 1, 'queued')
                """, arguments: [grnKey, Data(#"{"po":"PO-1","lines":[1]}"#.utf8), Data(#"{"po_number":"PO-1"}"#.utf8)])
            try db.execute(sql: "INSERT INTO receiving_grn_photos (idempotency_key, sha256) VALUES (?, ?)", arguments: [grnKey, sha])
        }
        let leased = try outbox.lease(owner: "test", now: 400, leaseSeconds: 30, limit: 10)
        let dead = try XCTUnwrap(leased.first { $0.stream == "po/2" })
        let conflicted = try XCTUnwrap(leased.first { $0.stream == "po/3" })
        _ = try outbox.deadLetter(id: dead.id, owner: "test", reason: "HTTP 422", now: 401)
        _ = try outbox.recordConflict(id: conflicted.id, owner: "test", serverVersion: Array(#"{"server":1}"#.utf8), now: 402)
        for entry in leased where entry.stream != "po/2" && entry.stream != "po/3" {
            try outbox.retryLater(id: entry.id, owner: "test", at: 500, error: "HTTP 503")
        }
        // A Study Start hold: its kind (not a fault, no operator release) must survive the trip.
        try SyncState(database: database).hold(credential: "enrollment.1.access", reason: "STUDY_START_PENDING", tokenFingerprint: "fp",
                                               kind: Enrollments.studyStartHold, now: 403)

        let push = try PushStore(database: database, stationZone: "UTC")
        try push.savePreferences(PushPreferences(userID: "ana", timeZone: "Europe/Berlin"), now: 1_000)
        _ = try push.registerDevice(userID: "ana", token: "fcm-token-ana-1", platform: .android, now: 1_001)
        _ = try push.registerDevice(userID: "ana", token: "fcm-token-ana-2", platform: .ios, now: 1_002)
        _ = try push.retireDevice(token: "fcm-token-ana-1", reason: "UNREGISTERED", now: 1_003)
        _ = try push.accept(PushNotification(userID: "ana", type: .deliveryUpdate, priority: .normal, title: "Delivered", body: "PO-1",
                                             ttlSeconds: 3_600, createdAt: 1_004), now: 1_004)
        _ = try push.inboxOpened(userID: "ana", now: 1_005)
        return database
    }

    private func freshStation() throws -> EdgeDatabase {
        try stationDatabase()
    }

    private static let tables = ["outbox", "dead_letters", "conflicts", "credential_holds", "enrollments", "enrollment_transitions",
                                 "enrollment_attempts", "receiving_orders", "receiving_photos", "receiving_grns", "receiving_grn_photos",
                                 "push_users", "push_devices", "push_digests", "push_notifications", "push_badges"]

    /// Every exported table's rows as text, local row ids and what is deliberately not carried
    /// (leases, token fingerprints) left out, sorted.
    private func contents(_ database: EdgeDatabase) throws -> [String: [String]] {
        let ignored: Set<String> = ["id", "lease_owner", "lease_expires_at", "token_fingerprint"]
        return try database.dbWriter.read { db in
            var out: [String: [String]] = [:]
            for table in Self.tables {
                out[table] = try Row.fetchAll(db, sql: "SELECT * FROM \(table)").map { row in
                    row.columnNames.filter { !ignored.contains($0) }.map { "\($0)=\(row[$0] as DatabaseValue)" }.joined(separator: " ")
                }.sorted()
            }
            return out
        }
    }

    private func encode(_ archive: StationArchive) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array(try encoder.encode(archive))
    }

    // MARK: Tests

    func testStationExportRoundTripsEveryTableAndReimportAddsNothing() throws {
        let source = try populatedStation()
        let archive = try StationExport.archive(of: source, sections: StationSchema.archiveSections, now: 2_000, edgeVersion: "test")
        XCTAssertEqual(archive.outbox.count, 2)
        XCTAssertEqual(archive.deadLetters.count, 1)
        XCTAssertEqual(archive.conflicts.count, 1)
        XCTAssertEqual(try archive.rows("enrollments", as: EnrollmentArchive.EnrollmentRow.self).first?.transitions.count, 3)
        XCTAssertEqual(archive.pushDevices.count, 2)
        XCTAssertEqual(archive.pushNotifications.count, 1)
        XCTAssertEqual(try archive.rows("grns", as: ReceivingArchive.GRNRow.self).first?.photos.count, 1)

        let bytes = try encode(archive)
        let decoded = try StationImport.decode(bytes, sections: StationSchema.archiveSections)
        XCTAssertEqual(decoded, archive, "the document decodes to what was exported")

        let target = try freshStation()
        let report = try StationImport.apply(decoded, to: target, sections: StationSchema.archiveSections)
        XCTAssertEqual(report.count("outbox")?.imported, 2)
        XCTAssertEqual(report.count("push_notifications")?.imported, 1)
        var expected = try contents(source)
        // The hold's token fingerprint is not exported (a keyed hash of the old station's token).
        XCTAssertEqual(try contents(target), expected)

        // Sequences kept, and the new station's own next entry still comes after them (SYN-2).
        let outbox = Outbox(database: target)
        let next = try target.dbWriter.write { db in try outbox.enqueue(db, stream: "po/9", kind: "scan", payload: Array("{}".utf8), now: 3_000) }
        let highest = (archive.outbox.map(\.sequence) + archive.deadLetters.map(\.sequence) + archive.conflicts.map(\.sequence)).max() ?? 0
        XCTAssertGreaterThan(next.sequence, highest)
        expected = try contents(target)

        // Again: nothing is duplicated, every row is counted as already present.
        let again = try StationImport.apply(try StationImport.decode(bytes, sections: StationSchema.archiveSections), to: target, sections: StationSchema.archiveSections)
        XCTAssertEqual(again.imported, 0, "\(again.tables)")
        XCTAssertEqual(again.count("outbox")?.alreadyPresent, 2)
        XCTAssertEqual(again.count("enrollments")?.alreadyPresent, 1)
        XCTAssertEqual(try contents(target), expected)

        // An entry the new station has dead-lettered since is not queued again either.
        let leased = try outbox.lease(owner: "t", now: 10_000, leaseSeconds: 30, limit: 10)
        for entry in leased { _ = try outbox.deadLetter(id: entry.id, owner: "t", reason: "test", now: 10_001) }
        XCTAssertEqual(try StationImport.apply(try StationImport.decode(bytes, sections: StationSchema.archiveSections), to: target, sections: StationSchema.archiveSections).imported, 0)
    }

    func testEnrollmentIDsAreRemappedWithTheirStreamsAndCredentials() throws {
        let source = try populatedStation()
        let archive = try StationExport.archive(of: source, sections: StationSchema.archiveSections)
        let target = try freshStation()
        // The new station already linked its own enrollment: the imported one gets the next id.
        try target.dbWriter.write { db in
            try db.execute(sql: """
                INSERT INTO enrollments (state, sponsor_id, masked_code, backend_url, created_at, updated_at)
                VALUES ('PERSONAL_USE', 'sponsor-cd', 'CD-***-*****', 'https://cd.invalid', 900, 900)
                """)
        }
        _ = try StationImport.apply(archive, to: target, sections: StationSchema.archiveSections)
        let (streams, credentials, holds) = try target.dbWriter.read { db in
            (try String.fetchAll(db, sql: "SELECT stream FROM outbox WHERE stream LIKE 'enrollment:%'"),
             try String.fetchAll(db, sql: "SELECT credential FROM outbox WHERE credential IS NOT NULL"),
             try String.fetchAll(db, sql: "SELECT credential FROM credential_holds"))
        }
        XCTAssertEqual(streams, ["enrollment:2"])
        XCTAssertEqual(credentials, ["enrollment.2.access"])
        XCTAssertEqual(holds, ["enrollment.2.access"])
        let transitions = try target.dbWriter.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM enrollment_transitions WHERE enrollment_id = 2")
        }
        XCTAssertEqual(transitions, 3)
    }

    func testDigestIDsAreRemappedForTheirNotifications() throws {
        let source = try populatedStation()
        let digest = """
            INSERT INTO push_digests (user_id, type_group, tag, title, body, count, urgent_count, release_at, status, created_at, updated_at)
            VALUES (?, 'deliveries', ?, 'Deliveries', '2 updates', 2, 0, 2000, 'QUEUED', ?, 2000)
            """
        try source.dbWriter.write { db in
            try db.execute(sql: digest, arguments: ["ana", "d-ana", 1_900])
            try db.execute(sql: "UPDATE push_notifications SET digest_id = ?", arguments: [db.lastInsertedRowID])
        }
        let archive = try StationExport.archive(of: source, sections: StationSchema.archiveSections)
        let target = try freshStation()
        // The new station's own digest takes id 1: the imported one becomes 2, and its notification follows.
        try target.dbWriter.write { db in try db.execute(sql: digest, arguments: ["bo", "d-bo", 1_950]) }
        _ = try StationImport.apply(archive, to: target, sections: StationSchema.archiveSections)
        let (digestTag, id) = try target.dbWriter.read { db in
            (try String.fetchOne(db, sql: "SELECT d.tag FROM push_notifications n JOIN push_digests d ON d.id = n.digest_id"),
             try Int64.fetchOne(db, sql: "SELECT digest_id FROM push_notifications"))
        }
        XCTAssertEqual(digestTag, "d-ana")
        XCTAssertEqual(id, 2)
        XCTAssertEqual(try StationImport.apply(archive, to: target, sections: StationSchema.archiveSections).imported, 0)
    }

    func testRefusedDocumentsWriteNothing() throws {
        let source = try populatedStation()
        let archive = try StationExport.archive(of: source, sections: StationSchema.archiveSections)
        let good = try encode(archive)
        let target = try freshStation()
        let empty = try contents(target)

        func refused(_ bytes: [UInt8], _ code: StationArchiveErrorCode, limits: StationArchiveLimits = .standard,
                     file: StaticString = #filePath, line: UInt = #line) {
            do {
                let decoded = try StationImport.decode(bytes, sections: StationSchema.archiveSections, limits: limits)
                _ = try StationImport.apply(decoded, to: target, sections: StationSchema.archiveSections)
                XCTFail("expected \(code)", file: file, line: line)
            } catch {
                // Both calls throw StationArchiveError only (typed throws).
                XCTAssertEqual(error.code, code, error.message, file: file, line: line)
            }
        }
        func edited(_ change: (inout [String: Any]) -> Void) throws -> [UInt8] {
            var object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(good)) as? [String: Any])
            change(&object)
            return Array(try JSONSerialization.data(withJSONObject: object))
        }

        refused(Array("{not json".utf8), .invalidDocument)
        refused(try edited { $0["format"] = "something-else" }, .unknownFormat)
        refused(try edited { $0["version"] = 2 }, .unsupportedVersion)
        refused(try edited { $0["version"] = 2; $0["outbox"] = "a shape this edge does not know" }, .unsupportedVersion)
        refused(try edited { $0["outbox"] = nil }, .invalidDocument)
        refused(good, .tooLarge, limits: StationArchiveLimits(maxDocumentBytes: good.count - 1))
        // Tampered: a payload that is not JSON, a duplicated key, a stream naming an enrollment not carried.
        refused(try edited { object in
            var entries = object["outbox"] as? [[String: Any]] ?? []
            entries[0]["payload"] = Data("{not json".utf8).base64EncodedString()
            object["outbox"] = entries
        }, .invalidDocument)
        refused(try edited { object in
            var entries = object["outbox"] as? [[String: Any]] ?? []
            entries.append(entries[0])
            object["outbox"] = entries
        }, .invalidDocument)
        refused(try edited { $0["enrollments"] = [] }, .invalidDocument)
        // A list longer than its bound is refused before its elements are decoded.
        refused(try edited { object in
            var enrollments = object["enrollments"] as? [[String: Any]] ?? []
            enrollments[0]["transitions"] = Array(repeating: [String: Any](), count: StationArchiveLimits.maxNestedRows + 1)
            object["enrollments"] = enrollments
        }, .tooManyRows)
        // A bad value the database refuses (CHECK) after other rows were written: rolled back.
        refused(try edited { object in
            var devices = object["push_devices"] as? [[String: Any]] ?? []
            devices[1]["platform"] = "PALM"
            object["push_devices"] = devices
        }, .storeFailure)
        XCTAssertEqual(try contents(target), empty, "a refused import wrote nothing")
    }

    func testConflictingStationDataRefusesTheWholeImport() throws {
        let archive = try StationExport.archive(of: try populatedStation(), sections: StationSchema.archiveSections)
        let target = try freshStation()
        // The same idempotency key with another payload: the station and the document disagree.
        try target.dbWriter.write { db in
            try db.execute(sql: """
                INSERT INTO outbox (stream, kind, payload, idempotency_key, sequence, created_at, next_attempt_at)
                VALUES ('po/3', 'scan', ?, ?, 999, 'x', 0)
                """, arguments: [Data("{}".utf8), archive.outbox[1].idempotencyKey])
        }
        let before = try contents(target)
        XCTAssertThrowsError(try StationImport.apply(archive, to: target, sections: StationSchema.archiveSections)) { error in
            XCTAssertEqual((error as? StationArchiveError)?.code, .conflictingData)
        }
        XCTAssertEqual(try contents(target), before)

        // A sequence the new station already used for its own work.
        let other = try freshStation()
        try other.dbWriter.write { db in
            try db.execute(sql: """
                INSERT INTO outbox (stream, kind, payload, idempotency_key, sequence, created_at, next_attempt_at)
                VALUES ('po/7', 'scan', ?, 'own-key', ?, 'x', 0)
                """, arguments: [Data("{}".utf8), archive.outbox[0].sequence])
        }
        XCTAssertThrowsError(try StationImport.apply(archive, to: other, sections: StationSchema.archiveSections)) { error in
            XCTAssertEqual((error as? StationArchiveError)?.code, .conflictingData)
        }
    }

    func testExportValidatesAgainstItsSchema() throws {
        let archive = try StationExport.archive(of: try populatedStation(), sections: StationSchema.archiveSections, edgeVersion: "test")
        let schema = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("models/station-export.schema.json").path
        try PythonCheck.validate(json: Data(try encode(archive)), schema: schema)
    }
}
