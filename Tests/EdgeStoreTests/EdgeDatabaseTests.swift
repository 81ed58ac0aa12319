import EdgeCore
import EdgeStore
import Foundation
import GRDB
import XCTest

final class EdgeDatabaseTests: XCTestCase {
    func testMigrationsCreateTheSchema() throws {
        let database = try EdgeDatabase(path: try makeDatabasePath(self))
        let tables = try database.dbWriter.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        }
        for table in ["conflicts", "dead_letters", "exchanges", "outbox", "sequence_counter", "sync_cursors"] {
            XCTAssertTrue(tables.contains(table), "missing table \(table) in \(tables)")
        }
        // The store's own history only: the capabilities' tables are theirs (EdgeStationTests).
        XCTAssertFalse(tables.contains { $0.hasPrefix("enrollment") || $0.hasPrefix("receiving") }, "\(tables)")
        let applied = try database.dbWriter.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") }
        XCTAssertEqual(applied, ["v1", "v2", "v3", "v4", "v5", "v8"])
        let outboxColumns = try database.dbWriter.read { db in try db.columns(in: "outbox").map(\.name) }
        XCTAssertEqual(outboxColumns, ["id", "stream", "kind", "payload", "idempotency_key", "sequence", "created_at",
                                       "attempts", "next_attempt_at", "lease_owner", "lease_expires_at", "last_error", "credential"])
    }

    func testWALModeAndSynchronousFullOnWriterAndReader() throws {
        let database = try EdgeDatabase(path: try makeDatabasePath(self))
        let writer = try database.dbWriter.writeWithoutTransaction { db in
            (try Int.fetchOne(db, sql: "PRAGMA synchronous"), try String.fetchOne(db, sql: "PRAGMA journal_mode"),
             try Int.fetchOne(db, sql: "PRAGMA foreign_keys"))
        }
        XCTAssertEqual(writer.0, 2, "writer synchronous must be FULL (GRDB resets it to NORMAL when enabling WAL)")
        XCTAssertEqual(writer.1, "wal")
        XCTAssertEqual(writer.2, 1)
        let reader = try database.dbWriter.read { db in
            (try Int.fetchOne(db, sql: "PRAGMA synchronous"), try Int.fetchOne(db, sql: "PRAGMA foreign_keys"))
        }
        XCTAssertEqual(reader.0, 2, "reader synchronous must be FULL")
        XCTAssertEqual(reader.1, 1)
    }

    func testReopenKeepsDataAndDoesNotRemigrate() throws {
        let path = try makeDatabasePath(self)
        do {
            let database = try EdgeDatabase(path: path)
            try database.dbWriter.write { db in
                _ = try Outbox(database: database).enqueue(db, stream: "s", kind: "k", payload: json("{}"))
            }
            try database.close()
        }
        let reopened = try EdgeDatabase(path: path)
        XCTAssertEqual(try Outbox(database: reopened).pendingEntries().count, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + ".creating"))
    }

    /// Processes starting at the same moment on a new station each create the database; one
    /// file wins and every opener uses it, so no write is made to a file that is then replaced.
    func testConcurrentFirstOpensShareOneFile() throws {
        let path = try makeDatabasePath(self)
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            do {
                let database = try EdgeDatabase(path: path)
                try database.dbWriter.write { db in
                    _ = try Outbox(database: database).enqueue(db, stream: "s\(index)", kind: "k", payload: json("{}"))
                }
                try database.close()
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, [])
        XCTAssertEqual(try Outbox(database: try EdgeDatabase(path: path)).pendingEntries().count, 8)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: (path as NSString).deletingLastPathComponent).filter { $0.contains(".creating") }
        XCTAssertEqual(leftovers, [])
    }

    /// Two processes opening a rollback-journal file at once (a copy restored from a backup; until
    /// this change every new station's file) both switch it to WAL, and SQLite answers the one
    /// that finds the other holding the write lock "database is locked" at once, without waiting
    /// its busy timeout (both hold a read lock: waiting could deadlock). Seen in CI: `edge run`
    /// exited at its start while an `edge sync enqueue` opened the new file.
    func testOpenWaitsForAnotherOpenerSwitchingTheFileToWAL() throws {
        let path = try makeDatabasePath(self)
        try EdgeDatabase(path: path).close()
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        let other = try DatabaseQueue(path: path, configuration: configuration)
        XCTAssertEqual(try other.inDatabase { db in try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE") }, "delete")
        // The other opener in the middle of its switch: it holds the write lock for a moment.
        try other.inDatabase { db in try db.execute(sql: "BEGIN IMMEDIATE") }
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(150)) {
            try? other.inDatabase { db in try db.execute(sql: "COMMIT") }
        }
        let database = try EdgeDatabase(path: path)
        XCTAssertEqual(try database.dbWriter.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }, "wal")
        try database.close()
        try other.close()
    }

    /// After an upgrade, the agent and a command may open the database at the same moment, both
    /// finding the new version's migration unapplied. One applies it; the other, which had read
    /// the list before that commit, must not run it again ("table ... already exists") and fail.
    func testOpenersAtTheSameMomentApplyANewMigrationOnce() throws {
        let upgrade = SchemaMigration("test-upgrade") { db in
            try db.execute(sql: "CREATE TABLE upgrade_table (id INTEGER PRIMARY KEY)")
        }
        for _ in 0..<10 {
            let path = try makeDatabasePath(self)
            try EdgeDatabase(path: path).close()
            let failures = Locked<[String]>([])
            let start = DispatchTime.now().uptimeNanoseconds + 20_000_000
            DispatchQueue.concurrentPerform(iterations: 2) { _ in
                while DispatchTime.now().uptimeNanoseconds < start {}
                do {
                    try EdgeDatabase(path: path, migrations: [upgrade]).close()
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
            XCTAssertEqual(failures.withLock { $0 }, [])
        }
    }

    func testCorruptPageIsDetected() throws {
        let path = try makeDatabasePath(self)
        do {
            let database = try EdgeDatabase(path: path)
            let outbox = Outbox(database: database)
            let payload = json("{\"filler\":\"" + String(repeating: "x", count: 2000) + "\"}")
            try database.dbWriter.write { db in
                for index in 0..<300 {
                    try outbox.enqueue(db, stream: "stream-\(index % 7)", kind: "scan", payload: payload)
                }
            }
            // GRDB closes the writer before the read-only readers, so the WAL is not folded back
            // on close: fold it now so the rows are in the main file that gets damaged.
            try database.dbWriter.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
            try database.close()
        }
        // Overwrite a whole page in the middle of the closed file.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        let size = try handle.seekToEnd()
        XCTAssertGreaterThan(size, 100_000)
        try handle.seek(toOffset: (size / 2) / 4096 * 4096)
        try handle.write(contentsOf: Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }))
        try handle.close()

        let error = assertStoreError(.corrupt) { try EdgeDatabase(path: path) }
        XCTAssertTrue(error?.message.contains(path) ?? false, error?.message ?? "")
    }

    func testZeroByteFileIsRefused() throws {
        let path = try makeDatabasePath(self)
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data()))
        let error = assertStoreError(.corrupt) { try EdgeDatabase(path: path) }
        XCTAssertTrue(error?.message.contains(path) ?? false)
        XCTAssertTrue(error?.message.contains("empty") ?? false)
    }

    func testGarbageFileIsRefused() throws {
        let path = try makeDatabasePath(self)
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 17) })
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: garbage))
        let error = assertStoreError(.corrupt) { try EdgeDatabase(path: path) }
        XCTAssertTrue(error?.message.contains(path) ?? false, error?.message ?? "")
    }

    func testUnopenablePathIsOpenFailed() throws {
        let directory = try makeTemporaryDirectory(self)
        let path = directory.appendingPathComponent("missing/dir/edge.sqlite").path
        let error = assertStoreError(.openFailed) { try EdgeDatabase(path: path) }
        XCTAssertTrue(error?.message.contains(path) ?? false)
    }
}
