import EdgeStore
import EdgeTestSupport
import Foundation
import GRDB
import XCTest

/// Issue #30 item 3: `OutboxSalvage` against real SQLite files damaged three ways (a page's bits
/// flipped, the file cut short, another file under its name).
final class OutboxSalvageTests: XCTestCase {
    /// A closed database with `count` entries on five streams (each payload carries `row-<n>-` and
    /// filler, so a page holds a handful) and, when asked, the first `dead` of them dead-lettered;
    /// the WAL folded in. Returns the entries as enqueued.
    static func makeDamageable(_ path: String, count: Int = 300, dead: Int = 0) throws -> [OutboxEntry] {
        let database = try EdgeDatabase(path: path)
        let outbox = Outbox(database: database)
        let filler = String(repeating: "x", count: 300)
        let entries = try database.dbWriter.write { db in
            try (1...count).map { n in
                try outbox.enqueue(db, stream: "stream-\(n % 5)", kind: "scan", payload: json(#"{"marker":"row-\#(n)-","filler":"\#(filler)"}"#),
                                   credential: n % 7 == 0 ? "enrollment.e-\(n)" : nil, now: 1_700_000_000 + Double(n))
            }
        }
        for entry in entries.prefix(dead) {
            _ = try outbox.lease(owner: "test", now: 2_000_000_000, leaseSeconds: 30, limit: 1000)
            try outbox.deadLetter(id: entry.id, owner: "test", reason: "HTTP 422: refused \(entry.sequence)")
        }
        try database.dbWriter.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        try database.close()
        return entries
    }

    private func target() throws -> Outbox {
        Outbox(database: try EdgeDatabase(path: try makeDatabasePath(self)))
    }

    /// Every salvaged entry is the original one: same key, stream, kind, payload, credential,
    /// creation time and sequence.
    private func assertSame(_ restored: [OutboxEntry], as original: [OutboxEntry], file: StaticString = #filePath, line: UInt = #line) {
        let byKey = Dictionary(uniqueKeysWithValues: original.map { ($0.idempotencyKey, $0) })
        for entry in restored {
            guard let source = byKey[entry.idempotencyKey] else {
                XCTFail("\(entry.idempotencyKey) was never enqueued", file: file, line: line)
                continue
            }
            XCTAssertEqual(entry.stream, source.stream, file: file, line: line)
            XCTAssertEqual(entry.kind, source.kind, file: file, line: line)
            XCTAssertEqual(entry.payload, source.payload, file: file, line: line)
            XCTAssertEqual(entry.credential, source.credential, file: file, line: line)
            XCTAssertEqual(entry.createdAt, source.createdAt, file: file, line: line)
            XCTAssertEqual(entry.sequence, source.sequence, file: file, line: line)
        }
    }

    func testBitFlippedPageLosesOnlyTheEntriesOnIt() throws {
        let damaged = try makeDatabasePath(self)
        let original = try Self.makeDamageable(damaged, dead: 10)
        try DatabaseDamage.flipPageType(damaged, pageHolding: "row-150-")
        XCTAssertThrowsError(try EdgeDatabase(path: damaged)) { XCTAssertEqual(($0 as? StoreError)?.code, .corrupt) }

        let outbox = try target()
        let report = try OutboxSalvage.salvage(file: damaged, into: outbox, now: 2_000_000_100)
        let restored = try outbox.pendingEntries()
        let dead = try outbox.deadLetters()
        // The page held a few rows; the indexes still name them, with their keys.
        XCTAssertFalse(report.complete)
        XCTAssertTrue((1...20).contains(report.lost.count), "\(report.lost.count) lost")
        XCTAssertEqual(report.requeued, restored.count)
        XCTAssertEqual(report.deadLetters, dead.count)
        XCTAssertEqual(report.deadLetters, 10)
        XCTAssertEqual(report.requeued + report.deadLetters + report.lost.count, original.count)
        let recoveredKeys = Set(restored.map(\.idempotencyKey) + dead.map(\.idempotencyKey))
        let lostKeys = Set(report.lost.compactMap(\.idempotencyKey))
        XCTAssertEqual(lostKeys.count, report.lost.count, "every lost entry is named by its key")
        XCTAssertEqual(recoveredKeys.union(lostKeys), Set(original.map(\.idempotencyKey)))
        XCTAssertTrue(lostKeys.contains(original[149].idempotencyKey))
        assertSame(restored, as: original)
        // Due now, the salvage named as their last error; dead letters keep their reason.
        XCTAssertTrue(restored.allSatisfy { $0.nextAttemptAt == 2_000_000_100 && $0.lastError?.hasPrefix("salvaged from edge.sqlite") == true })
        XCTAssertTrue(dead.allSatisfy { $0.reason.hasPrefix("HTTP 422: refused ") })
        // New entries of the station's own come after every salvaged one.
        let next = try outbox.database.dbWriter.write { db in try outbox.enqueue(db, stream: "stream-0", kind: "scan", payload: json("{}")) }
        XCTAssertGreaterThan(next.sequence, original.map(\.sequence).max() ?? 0)
        // The damaged file is as it was.
        XCTAssertThrowsError(try EdgeDatabase(path: damaged))
    }

    func testTruncatedFileGivesWhatItStillHolds() throws {
        let damaged = try makeDatabasePath(self)
        let original = try Self.makeDamageable(damaged)
        try DatabaseDamage.truncate(damaged, fraction: 0.85)
        XCTAssertThrowsError(try EdgeDatabase(path: damaged)) { XCTAssertEqual(($0 as? StoreError)?.code, .corrupt) }

        let outbox = try target()
        let report = try OutboxSalvage.salvage(file: damaged, into: outbox)
        let restored = try outbox.pendingEntries()
        XCTAssertGreaterThan(restored.count, 0)
        XCTAssertLessThan(restored.count, original.count)
        XCTAssertEqual(report.requeued, restored.count)
        XCTAssertFalse(report.complete)
        assertSame(restored, as: original)
    }

    func testAnotherKindOfFileGivesNothingAndSaysSo() throws {
        let damaged = try makeDatabasePath(self)
        try DatabaseDamage.replaceWithPNG(damaged)
        let outbox = try target()
        let error = assertStoreError(.corrupt) { try OutboxSalvage.salvage(file: damaged, into: outbox) }
        XCTAssertTrue(error?.message.contains("not a SQLite database") == true, error?.message ?? "")
        XCTAssertEqual(try outbox.pendingEntries(), [])
    }

    func testASecondRunQueuesNothingTwice() throws {
        let damaged = try makeDatabasePath(self)
        let original = try Self.makeDamageable(damaged, count: 40, dead: 3)
        try DatabaseDamage.flipPageType(damaged, pageHolding: "row-20-")
        let outbox = try target()
        let first = try OutboxSalvage.salvage(file: damaged, into: outbox)
        let second = try OutboxSalvage.salvage(file: damaged, into: outbox)
        XCTAssertEqual(second.requeued, 0)
        XCTAssertEqual(second.deadLetters, 0)
        XCTAssertEqual(second.alreadyPresent, first.requeued + first.deadLetters)
        XCTAssertEqual(try outbox.pendingEntries().count + outbox.deadLetters().count, first.requeued + first.deadLetters)
        XCTAssertEqual(first.requeued + first.deadLetters + first.lost.count, original.count)
    }

    /// A station that queued its own entries in a fresh file whose counter started over (the
    /// damaged counter unreadable): the salvaged entries keep their keys, take new sequences where
    /// theirs are used, and the counter moves past all of them.
    func testUsedSequencesAreReplacedAndTheCounterMovesOn() throws {
        let damaged = try makeDatabasePath(self)
        let original = try Self.makeDamageable(damaged, count: 30)
        try DatabaseDamage.flipPageType(damaged, pageHolding: "row-29-")
        let outbox = try target()
        let own = try outbox.database.dbWriter.write { db in
            try (1...5).map { _ in try outbox.enqueue(db, stream: "own", kind: "scan", payload: json("{}")) }
        }
        let report = try OutboxSalvage.salvage(file: damaged, into: outbox)
        XCTAssertEqual(report.renumbered, 5)
        let salvaged = try outbox.pendingEntries().filter { $0.stream != "own" }
        XCTAssertEqual(Set(salvaged.map(\.sequence)).count, salvaged.count)
        XCTAssertTrue(Set(salvaged.map(\.sequence)).isDisjoint(with: own.map(\.sequence)))
        XCTAssertTrue(Set(salvaged.map(\.idempotencyKey)).isSubset(of: original.map(\.idempotencyKey)))
        let next = try outbox.database.dbWriter.write { db in try outbox.enqueue(db, stream: "own", kind: "scan", payload: json("{}")) }
        XCTAssertGreaterThan(next.sequence, try outbox.pendingEntries().map(\.sequence).filter { $0 != next.sequence }.max() ?? 0)
    }

    func testTheStationsOwnDatabaseAndMissingFilesAreRefused() throws {
        let outbox = try target()
        let own = assertStoreError(.invalidArgument) { try OutboxSalvage.salvage(file: outbox.database.path, into: outbox) }
        XCTAssertTrue(own?.message.contains("own database") == true, own?.message ?? "")
        let missing = assertStoreError(.invalidArgument) { try OutboxSalvage.salvage(file: outbox.database.path + ".absent", into: outbox) }
        XCTAssertTrue(missing?.message.contains("No such file") == true, missing?.message ?? "")
    }
}
