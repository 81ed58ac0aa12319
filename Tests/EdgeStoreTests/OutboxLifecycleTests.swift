import EdgeStore
import GRDB
import XCTest

final class OutboxLifecycleTests: XCTestCase {
    private func makeOutbox() throws -> Outbox {
        Outbox(database: try EdgeDatabase(path: try makeDatabasePath(self)))
    }

    @discardableResult
    private func enqueue(_ outbox: Outbox, _ stream: String, _ body: String = "{}", now: Double = 1000) throws -> OutboxEntry {
        try outbox.database.dbWriter.write { db in try outbox.enqueue(db, stream: stream, kind: "k", payload: json(body), now: now) }
    }

    func testFIFOPerStreamAndIndependentStreams() throws {
        let outbox = try makeOutbox()
        let a1 = try enqueue(outbox, "a"), a2 = try enqueue(outbox, "a"), b1 = try enqueue(outbox, "b"), b2 = try enqueue(outbox, "b")
        // Only each stream's head, oldest first.
        XCTAssertEqual(try outbox.lease(owner: "s", now: 1000, leaseSeconds: 30, limit: 10).map(\.id), [a1.id, b1.id])
        // Heads are leased: nothing more from either stream for another owner.
        XCTAssertEqual(try outbox.lease(owner: "t", now: 1001, leaseSeconds: 30, limit: 10), [])
        // Stream a backs off; stream b completes its head and moves on.
        try outbox.retryLater(id: a1.id, owner: "s", at: 2000, error: "503")
        try outbox.complete(id: b1.id, owner: "s")
        XCTAssertEqual(try outbox.lease(owner: "s", now: 1002, leaseSeconds: 30, limit: 10).map(\.id), [b2.id])
        // a2 never overtakes a1; once due, a1 comes back with the same key and sequence.
        try outbox.complete(id: b2.id, owner: "s")
        let again = try outbox.lease(owner: "s", now: 2000, leaseSeconds: 30, limit: 10)
        XCTAssertEqual(again.map(\.id), [a1.id])
        XCTAssertEqual(again.first?.idempotencyKey, a1.idempotencyKey)
        XCTAssertEqual(again.first?.sequence, a1.sequence)
        XCTAssertEqual(again.first?.attempts, 1)
        XCTAssertEqual(again.first?.lastError, "503")
        try outbox.complete(id: a1.id, owner: "s")
        XCTAssertEqual(try outbox.lease(owner: "s", now: 2000, leaseSeconds: 30, limit: 10).map(\.id), [a2.id])
    }

    func testLimitAndTransportFailuresDoNotCount() throws {
        let outbox = try makeOutbox()
        for stream in ["a", "b", "c"] { try enqueue(outbox, stream) }
        let leased = try outbox.lease(owner: "s", now: 1000, leaseSeconds: 30, limit: 2)
        XCTAssertEqual(leased.map(\.stream), ["a", "b"])
        let first = try XCTUnwrap(leased.first)
        try outbox.retryLater(id: first.id, owner: "s", at: 1000, error: "timeout", countAttempt: false)
        XCTAssertEqual(try outbox.lease(owner: "s", now: 1000, leaseSeconds: 30, limit: 1).first?.attempts, 0)
    }

    /// Issue #30 item 2: the wall clock stepped back an hour (a manual correction) does not hold a
    /// backed-off entry, a crashed owner's lease or the sender's pause for the hour; stepped
    /// forward by years it only makes them due (nothing lost, nothing sent twice: one lease).
    func testAClockSteppedBackHoldsNothingForTheLengthOfTheStep() throws {
        let outbox = try makeOutbox()
        let a = try enqueue(outbox, "a"), b = try enqueue(outbox, "b")
        XCTAssertEqual(try outbox.lease(owner: "s", now: 10_000, leaseSeconds: 120, limit: 10).map(\.id), [a.id, b.id])
        try outbox.retryLater(id: a.id, owner: "s", at: 10_060, error: "503")      // a backs off a minute
        // The owner of b crashes; the clock goes back an hour.
        let back = 10_000.0 - 3600
        XCTAssertEqual(try outbox.lease(owner: "t", now: back, leaseSeconds: 120, limit: 10).map(\.id), [a.id, b.id])
        // Ahead of anything scheduled: over. Within what is scheduled: still waiting.
        XCTAssertTrue(ScheduledWait.isOver(back + 3601, now: back))
        XCTAssertFalse(ScheduledWait.isOver(back + 3600, now: back))
        // Forward by ten years: due, each leased once.
        try outbox.retryLater(id: a.id, owner: "t", at: back + 30, error: "503")
        let forward = 10_000.0 + 10 * 365 * 86400
        XCTAssertEqual(try outbox.lease(owner: "u", now: forward, leaseSeconds: 120, limit: 10).map(\.id), [a.id, b.id])
        XCTAssertEqual(try outbox.lease(owner: "v", now: forward + 1, leaseSeconds: 120, limit: 10), [])

        // The sender's pause (300 s) ends when the clock went back past it, not an hour later.
        let state = SyncState(database: outbox.database)
        try state.recordFailure("HTTP 503", now: 20_000, pauseAfter: 1, pauseSeconds: 300)
        XCTAssertTrue(try state.sender().isPaused(now: 20_100))
        XCTAssertFalse(try state.sender().isPaused(now: 20_000 - 3600))
    }

    func testExpiredLeaseIsTakenOverNotBefore() throws {
        let outbox = try makeOutbox()
        let entry = try enqueue(outbox, "a")
        XCTAssertEqual(try outbox.lease(owner: "crashed", now: 1000, leaseSeconds: 60, limit: 5).map(\.id), [entry.id])
        XCTAssertEqual(try outbox.lease(owner: "new", now: 1059.9, leaseSeconds: 60, limit: 5), [])
        let taken = try outbox.lease(owner: "new", now: 1060, leaseSeconds: 60, limit: 5)
        XCTAssertEqual(taken.map(\.id), [entry.id])
        XCTAssertEqual(taken.first?.leaseOwner, "new")
        XCTAssertEqual(taken.first?.leaseExpiresAt, 1120)
        XCTAssertEqual(taken.first?.idempotencyKey, entry.idempotencyKey)
        // The old owner can no longer act on it.
        assertStoreError(.leaseLost) { try outbox.complete(id: entry.id, owner: "crashed") }
        assertStoreError(.leaseLost) { try outbox.retryLater(id: entry.id, owner: "crashed", at: 0, error: "x") }
        assertStoreError(.notFound) { try outbox.complete(id: 999, owner: "new") }
        assertStoreError(.invalidArgument) { try outbox.lease(owner: "", now: 0, leaseSeconds: 1, limit: 1) }
        try outbox.complete(id: entry.id, owner: "new")
        XCTAssertEqual(try outbox.pendingEntries(), [])
    }

    func testDeadLetterAndRequeueKeepKeyAndSequence() throws {
        let outbox = try makeOutbox()
        let head = try enqueue(outbox, "a", "{\"n\":1}"), next = try enqueue(outbox, "a", "{\"n\":2}")
        _ = try outbox.lease(owner: "s", now: 1000, leaseSeconds: 30, limit: 5)
        let dead = try outbox.deadLetter(id: head.id, owner: "s", reason: "422 unknown PO", now: 1001)
        XCTAssertEqual(dead.idempotencyKey, head.idempotencyKey)
        XCTAssertEqual(dead.sequence, head.sequence)
        XCTAssertEqual(dead.payload, head.payload)
        XCTAssertEqual(try outbox.deadLetters(), [dead])
        XCTAssertEqual(try outbox.pendingEntries(), [next])
        // Dead letters are still unsent work.
        XCTAssertEqual(try outbox.usage().entries, 2)

        let requeued = try outbox.requeue(deadLetterID: dead.id, now: 1002)
        XCTAssertEqual(requeued.idempotencyKey, head.idempotencyKey)
        XCTAssertEqual(requeued.sequence, head.sequence)
        XCTAssertEqual(requeued.payload, head.payload)
        XCTAssertEqual(requeued.createdAt, head.createdAt)
        XCTAssertEqual(try outbox.deadLetters(), [])
        // It is the stream's head again, ahead of the later entry.
        XCTAssertEqual(try outbox.lease(owner: "s", now: 1002, leaseSeconds: 30, limit: 5).map(\.id), [requeued.id])
        assertStoreError(.notFound) { try outbox.requeue(deadLetterID: dead.id) }
    }

    func testConflictsAreRecordedAndPurgedAfterSevenDays() throws {
        let outbox = try makeOutbox()
        let old = try enqueue(outbox, "a"), recent = try enqueue(outbox, "b")
        _ = try outbox.lease(owner: "s", now: 1000, leaseSeconds: 30, limit: 5)
        let day = 86_400.0
        let oldConflict = try outbox.recordConflict(id: old.id, owner: "s", serverVersion: json("{\"v\":2}"), now: 1000)
        try outbox.recordConflict(id: recent.id, owner: "s", serverVersion: json("{\"v\":3}"), now: 1000 + 3 * day)
        XCTAssertEqual(oldConflict.serverVersion, json("{\"v\":2}"))
        XCTAssertEqual(oldConflict.idempotencyKey, old.idempotencyKey)
        XCTAssertEqual(try outbox.pendingEntries(), [])
        XCTAssertEqual(try outbox.purgeExpiredConflicts(now: 1000 + 7 * day - 1), 0)
        XCTAssertEqual(try outbox.purgeExpiredConflicts(now: 1000 + 7 * day + 1), 1)
        XCTAssertEqual(try outbox.conflicts().map(\.idempotencyKey), [recent.idempotencyKey])
    }

    func testStatusReportsDepthAgeAndCounts() throws {
        let outbox = try makeOutbox()
        try enqueue(outbox, "a", now: 1000)
        try enqueue(outbox, "a", now: 1010)
        try enqueue(outbox, "b", now: 1050)
        let dead = try enqueue(outbox, "c", now: 1060)
        let conflict = try enqueue(outbox, "d", now: 1070)
        _ = try outbox.lease(owner: "s", now: 1100, leaseSeconds: 30, limit: 10)
        try outbox.deadLetter(id: dead.id, owner: "s", reason: "400")
        try outbox.recordConflict(id: conflict.id, owner: "s", serverVersion: json("{}"))
        try outbox.recordExchange(.push, at: 1090)
        try outbox.recordExchange(.push, at: 1095)

        let status = try outbox.status(now: 1100)
        XCTAssertEqual(status.streams.map(\.stream), ["a", "b"])
        XCTAssertEqual(status.streams.map(\.depth), [2, 1])
        XCTAssertEqual(status.streams.first?.oldestEntryAge ?? 0, 100, accuracy: 0.01)
        XCTAssertEqual(status.oldestEntryAge ?? 0, 100, accuracy: 0.01)
        XCTAssertEqual(status.depth, 3)
        XCTAssertEqual(status.deadLetterCount, 1)
        XCTAssertEqual(status.conflictCount, 1)
        XCTAssertEqual(status.lastPush, 1095)
        XCTAssertNil(status.lastPull)
        XCTAssertEqual(status.usage.entries, 4)
    }
}
