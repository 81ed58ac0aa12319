import EdgeStore
import EdgeTestSupport
import Foundation
import GRDB
import XCTest

/// Issue #30 item 3: at start a damaged database is moved aside (kept, named with the time, with
/// its -wal and -shm and a note) and a fresh one opened; a database that is only locked or not a
/// file is an error and stays where it is.
final class DatabaseRecoveryTests: XCTestCase {
    static let now: Double = 1_741_357_501  // 2025-03-07T14:25:01Z

    private func names(_ path: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: (path as NSString).deletingLastPathComponent).sorted()
    }

    func testAHealthyDatabaseIsOpenedAndNothingMoved() throws {
        let path = try makeDatabasePath(self)
        _ = try OutboxSalvageTests.makeDamageable(path, count: 3)
        let opened = try DatabaseRecovery.open(path: path, migrations: [], now: Self.now)
        XCTAssertNil(opened.movedAside)
        XCTAssertEqual(try Outbox(database: opened.database).pendingEntries().count, 3)
        XCTAssertFalse(try names(path).contains { $0.contains(".damaged-") })
    }

    func testADamagedFileIsMovedAsideWithItsCompanionsAndANote() throws {
        let path = try makeDatabasePath(self)
        let original = try OutboxSalvageTests.makeDamageable(path, count: 120)
        try DatabaseDamage.flipPageType(path, pageHolding: "row-60-")
        // What a crashed station leaves beside it.
        for companion in ["-wal", "-shm"] where !FileManager.default.fileExists(atPath: path + companion) {
            XCTAssertTrue(FileManager.default.createFile(atPath: path + companion, contents: Data()))
        }

        let opened = try DatabaseRecovery.open(path: path, migrations: [], now: Self.now)
        let moved = try XCTUnwrap(opened.movedAside)
        XCTAssertEqual(moved.path, path + ".damaged-20250307T142501Z")
        XCTAssertEqual(moved.movedAt, Self.now)
        XCTAssertTrue(moved.reason.contains("quick_check") || moved.reason.contains("integrity check"), moved.reason)
        let present = try names(path)
        for name in ["edge.sqlite.damaged-20250307T142501Z", "edge.sqlite.damaged-20250307T142501Z-wal",
                     "edge.sqlite.damaged-20250307T142501Z-shm", "edge.sqlite.damaged-20250307T142501Z.json"] {
            XCTAssertTrue(present.contains(name), "\(name) in \(present)")
        }
        // A fresh database in its place, empty, counting on past the damaged file's sequences.
        let outbox = Outbox(database: opened.database)
        XCTAssertEqual(try outbox.pendingEntries(), [])
        let next = try opened.database.dbWriter.write { db in try outbox.enqueue(db, stream: "s", kind: "k", payload: json("{}")) }
        XCTAssertEqual(next.sequence, (original.map(\.sequence).max() ?? 0) + 1)
        // Listed with its note, for status.
        let listed = DamagedDatabase.list(beside: path)
        XCTAssertEqual(listed, [moved])
        // And its entries can be salvaged from where it was moved.
        let report = try OutboxSalvage.salvage(file: moved.path, into: outbox, now: Self.now + 60)
        XCTAssertEqual(report.requeued + report.lost.count, original.count)
        XCTAssertEqual(DamagedDatabase.list(beside: path).first?.salvage?.requeued, report.requeued)
    }

    func testAnotherKindOfFileAndAnEmptyFileAreMovedAsideToo() throws {
        let path = try makeDatabasePath(self)
        try DatabaseDamage.replaceWithPNG(path)
        let first = try DatabaseRecovery.open(path: path, migrations: [], now: Self.now)
        XCTAssertNotNil(first.movedAside)
        try first.database.close()
        // Nothing readable: the fresh counter starts past the clock in milliseconds.
        let outbox = Outbox(database: try EdgeDatabase(path: path))
        let entry = try outbox.database.dbWriter.write { db in try outbox.enqueue(db, stream: "s", kind: "k", payload: json("{}")) }
        XCTAssertGreaterThanOrEqual(entry.sequence, Int64(Self.now * 1000))
        try outbox.database.close()

        // An empty file, in the same second: a second name.
        try FileManager.default.removeItem(atPath: path)
        for companion in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + companion) }
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data()))
        let second = try DatabaseRecovery.open(path: path, migrations: [], now: Self.now)
        XCTAssertEqual(second.movedAside?.path, path + ".damaged-20250307T142501Z-2")
        XCTAssertEqual(DamagedDatabase.list(beside: path).map(\.path), [path + ".damaged-20250307T142501Z", path + ".damaged-20250307T142501Z-2"])
    }

    /// Locked by another process: an error, not damage. The file stays, unmoved and unchanged.
    func testALockedDatabaseIsAnErrorAndStays() throws {
        let path = try makeDatabasePath(self)
        _ = try OutboxSalvageTests.makeDamageable(path, count: 3)
        let holder = try LockHolder(path)
        defer { holder.release() }
        XCTAssertThrowsError(try DatabaseRecovery.open(path: path, migrations: [], now: Self.now)) { error in
            let code = (error as? StoreError)?.code
            XCTAssertTrue(code == .databaseFailure || code == .openFailed, "\(error)")
            XCTAssertTrue((error as? StoreError)?.message.contains(path) == true, "\(error)")
            // SQLite's reason, so a lock held by another process is told from a bad file.
            XCTAssertTrue((error as? StoreError)?.message.contains("SQLite said database is locked") == true, "\(error)")
        }
        XCTAssertFalse(try names(path).contains { $0.contains(".damaged-") })
        holder.release()
        XCTAssertEqual(try Outbox(database: try EdgeDatabase(path: path)).pendingEntries().count, 3)
    }

    func testADirectoryInItsPlaceIsAnErrorAndStays() throws {
        let path = try makeDatabasePath(self)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        XCTAssertThrowsError(try DatabaseRecovery.open(path: path, migrations: [], now: Self.now)) { error in
            XCTAssertEqual((error as? StoreError)?.code, .openFailed, "\(error)")
        }
        var isDirectory: ObjCBool = false
        XCTAssertTrue(FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue)
        XCTAssertFalse(try names(path).contains { $0.contains(".damaged-") })
    }

    /// A move cut short after its first rename leaves the WAL under the live name; the next start
    /// moves it after its database instead of letting the fresh file replay it. Anyone else
    /// opening the store meanwhile is refused rather than handed a damaged fresh file.
    func testAWALLeftWithoutItsDatabaseFollowsIt() throws {
        let path = try makeDatabasePath(self)
        _ = try OutboxSalvageTests.makeDamageable(path, count: 3)
        let wal = Data("a stranger's write-ahead log".utf8)
        try wal.write(to: URL(fileURLWithPath: path + "-wal"))
        let moved = path + ".damaged-20250307T142400Z"
        try FileManager.default.moveItem(atPath: path, toPath: moved)

        let refused = assertStoreError(.openFailed) { try EdgeDatabase(path: path) }
        XCTAssertTrue(refused?.message.contains("-wal") == true, refused?.message ?? "")

        let opened = try DatabaseRecovery.open(path: path, migrations: [], now: Self.now)
        XCTAssertTrue(opened.orphans.contains(moved + "-wal"), "\(opened.orphans)")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: moved + "-wal")), wal)
        XCTAssertEqual(try Outbox(database: opened.database).pendingEntries(), [])
    }
}

/// A python3 process holding an exclusive lock on a database until released.
final class LockHolder {
    private let process = Process()
    private let input = Pipe()

    init(_ path: String) throws {
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", """
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1], isolation_level=None)
            c.execute("PRAGMA locking_mode=EXCLUSIVE")
            c.execute("BEGIN EXCLUSIVE")
            c.execute("UPDATE sequence_counter SET next_value = next_value")
            print("locked", flush=True)
            sys.stdin.read()
            """, path]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let line = output.fileHandleForReading.availableData
        guard String(decoding: line, as: UTF8.self).hasPrefix("locked") else {
            throw DatabaseDamage.Failure(description: "the lock holder did not lock \(path)")
        }
    }

    func release() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
