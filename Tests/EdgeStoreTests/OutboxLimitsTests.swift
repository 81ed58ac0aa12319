import EdgeStore
import GRDB
import XCTest

final class OutboxLimitsTests: XCTestCase {
    private func makeOutbox(_ limits: OutboxLimits) throws -> Outbox {
        Outbox(database: try EdgeDatabase(path: try makeDatabasePath(self)), limits: limits)
    }

    private func enqueue(_ outbox: Outbox, _ body: String = "{}") throws {
        _ = try outbox.database.dbWriter.write { db in try outbox.enqueue(db, stream: "s", kind: "k", payload: json(body)) }
    }

    func testEntryLevelsAndRefusal() throws {
        let outbox = try makeOutbox(OutboxLimits(maxEntries: 20, maxBytes: 1_000_000))
        var levels: [StorageLevel] = []
        for _ in 0..<20 {
            try enqueue(outbox)
            levels.append(try outbox.usage().level)
        }
        // 15 entries = 75 %, 16 = 80 %, 18 = 90 %, 19 = 95 %.
        XCTAssertEqual(levels[14], .normal)
        XCTAssertEqual(levels[15], .warning80)
        XCTAssertEqual(levels[17], .warning80)
        XCTAssertEqual(levels[18], .warning95)
        XCTAssertEqual(levels[19], .warning95)
        let error = assertStoreError(.full) { try enqueue(outbox) }
        XCTAssertTrue(error?.message.contains("20 of 20 entries") ?? false, error?.message ?? "")
        XCTAssertEqual(error?.context["maxEntries"], "20")
        // Nothing was dropped to make room, and the refused entry took no sequence.
        let entries = try outbox.pendingEntries()
        XCTAssertEqual(entries.map(\.sequence), Array(1...20))
        // Draining makes room again.
        let head = try XCTUnwrap(outbox.lease(owner: "o", now: .greatestFiniteMagnitude / 2, leaseSeconds: 1, limit: 1).first)
        try outbox.complete(id: head.id, owner: "o")
        try enqueue(outbox)
        XCTAssertEqual(try outbox.pendingEntries().last?.sequence, 21)
    }

    func testByteLevelsAndRefusal() throws {
        // Each payload "\"xxxxxxxx\"" is 10 bytes; limit 100 bytes.
        let outbox = try makeOutbox(OutboxLimits(maxEntries: 1000, maxBytes: 100))
        let payload = "\"xxxxxxxx\""
        for _ in 0..<7 { try enqueue(outbox, payload) }
        XCTAssertEqual(try outbox.usage().bytes, 70)
        XCTAssertEqual(try outbox.usage().level, .normal)
        try enqueue(outbox, payload)
        XCTAssertEqual(try outbox.usage().level, .warning80)
        try enqueue(outbox, "\"xxxxxxxxxxxxx\"")  // 15 bytes -> 95
        XCTAssertEqual(try outbox.usage().level, .warning95)
        let error = assertStoreError(.full) { try enqueue(outbox, "\"xxxx\"") }  // 6 bytes -> 101
        XCTAssertTrue(error?.message.contains("95 of 100 bytes") ?? false, error?.message ?? "")
        try enqueue(outbox, "\"xxx\"")  // 5 bytes -> exactly 100 is allowed
        XCTAssertEqual(try outbox.usage().bytes, 100)
        XCTAssertEqual(try outbox.pendingEntries().count, 10)
    }

    func testDeadLettersCountTowardsTheLimit() throws {
        let outbox = try makeOutbox(OutboxLimits(maxEntries: 2, maxBytes: 1000))
        try enqueue(outbox)
        try enqueue(outbox)
        let head = try XCTUnwrap(outbox.lease(owner: "o", now: .greatestFiniteMagnitude / 2, leaseSeconds: 1, limit: 1).first)
        try outbox.deadLetter(id: head.id, owner: "o", reason: "400")
        assertStoreError(.full) { try enqueue(outbox) }
        XCTAssertEqual(try outbox.deadLetters().count, 1)
    }
}
