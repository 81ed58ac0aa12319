import EdgeStore
import Foundation
import GRDB
import XCTest

/// Issue #33 item 4: a database a newer edge migrated (its history holds a migration this edge
/// does not know) is refused at open, naming the migration, and left exactly as it was, so the
/// newer edge, installed again, finds every entry. Real SQLite files.
final class DowngradeTests: XCTestCase {
    /// A capability's migration both edges have, and the one only the newer edge has.
    static let shared = SchemaMigration("test-capability-1") { db in
        try db.execute(sql: "CREATE TABLE capability_rows (id INTEGER PRIMARY KEY)")
    }
    static let newer = SchemaMigration("test-capability-2") { db in
        try db.execute(sql: "CREATE TABLE newer_rows (id INTEGER PRIMARY KEY, note TEXT NOT NULL)")
    }

    /// The newer edge's database, with one queued entry, closed.
    private func newerEdgesDatabase() throws -> String {
        let path = try makeDatabasePath(self)
        let database = try EdgeDatabase(path: path, migrations: [Self.shared, Self.newer])
        try database.dbWriter.write { db in
            _ = try Outbox(database: database).enqueue(db, stream: "s", kind: "k", payload: json(#"{"n": 1}"#))
        }
        try database.close()
        return path
    }

    func testADatabaseANewerEdgeMigratedIsRefusedNamingTheMigration() throws {
        let path = try newerEdgesDatabase()
        // The file and its WAL (GRDB's pool may leave one, with frames, when it closes).
        func files() -> [Data?] { [path, path + "-wal"].map { try? Data(contentsOf: URL(fileURLWithPath: $0)) } }
        let before = files()

        let error = assertStoreError(.newerVersion) { try EdgeDatabase(path: path, migrations: [Self.shared]) }
        let message = error?.message ?? ""
        XCTAssertTrue(message.contains("was written by a newer edge (migration test-capability-2)"), message)
        XCTAssertTrue(message.contains("install that version or newer"), message)
        XCTAssertTrue(message.contains(path), message)
        XCTAssertEqual(error?.context["unknownMigrations"], "test-capability-2")

        // Nothing written: the same bytes, and the newer edge opens it with its entry.
        XCTAssertEqual(files(), before)
        let again = try EdgeDatabase(path: path, migrations: [Self.shared, Self.newer])
        XCTAssertEqual(try Outbox(database: again).pendingEntries().count, 1)
    }

    /// The other direction is an upgrade: an older edge's database gains the new migration and
    /// keeps its entry.
    func testAnOlderEdgesDatabaseIsMigratedForward() throws {
        let path = try makeDatabasePath(self)
        do {
            let older = try EdgeDatabase(path: path, migrations: [Self.shared])
            try older.dbWriter.write { db in _ = try Outbox(database: older).enqueue(db, stream: "s", kind: "k", payload: json("{}")) }
            try older.close()
        }
        let upgraded = try EdgeDatabase(path: path, migrations: [Self.shared, Self.newer])
        XCTAssertEqual(try Outbox(database: upgraded).pendingEntries().count, 1)
        XCTAssertTrue(try upgraded.dbWriter.read { db in try db.tableExists("newer_rows") })
    }

    /// An opener that passes no capability migrations (`edge status`) reads the store's own tables
    /// and cannot tell a capability's migration from a newer edge's: it does not refuse.
    func testAStoreOnlyOpenerDoesNotJudgeTheHistory() throws {
        let path = try newerEdgesDatabase()
        let database = try EdgeDatabase(path: path)
        XCTAssertEqual(try Outbox(database: database).pendingEntries().count, 1)
    }
}
