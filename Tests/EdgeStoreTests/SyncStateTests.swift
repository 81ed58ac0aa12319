import EdgeStore
import GRDB
import XCTest

final class SyncStateTests: XCTestCase {
    private func open() throws -> (Outbox, SyncState) {
        let database = try EdgeDatabase(path: try makeDatabasePath(self))
        return (Outbox(database: database), SyncState(database: database))
    }

    private func enqueue(_ outbox: Outbox, _ stream: String, credential: String? = nil) throws -> OutboxEntry {
        try outbox.database.dbWriter.write { db in
            try outbox.enqueue(db, stream: stream, kind: "k", payload: json("{}"), credential: credential, now: 1000)
        }
    }

    func testHeldCredentialIsNotLeasedAndOthersGoOn() throws {
        let (outbox, state) = try open()
        let held = try enqueue(outbox, "enrollment/1", credential: "enrollment.1.token")
        let station = try enqueue(outbox, "po/1")
        XCTAssertEqual(held.credential, "enrollment.1.token")
        XCTAssertNil(station.credential)

        try state.hold(credential: "enrollment.1.token", reason: "TOKEN_REVOKED", now: 1000)
        XCTAssertEqual(try state.holds().map(\.credential), ["enrollment.1.token"])
        XCTAssertEqual(try outbox.lease(owner: "s", now: 1000, leaseSeconds: 30, limit: 10).map(\.id), [station.id])
        // Nothing was deleted: the held entry is still counted and listed.
        XCTAssertEqual(try outbox.pendingEntries().map(\.id), [held.id, station.id])
        XCTAssertEqual(try outbox.status(now: 1000).holds.first?.reason, "TOKEN_REVOKED")

        XCTAssertTrue(try state.release(credential: "enrollment.1.token"))
        XCTAssertFalse(try state.release(credential: "enrollment.1.token"))
        XCTAssertEqual(try outbox.lease(owner: "s", now: 1000, leaseSeconds: 30, limit: 10).map(\.id), [held.id, station.id])
    }

    func testCredentialSurvivesDeadLetterAndRequeue() throws {
        let (outbox, _) = try open()
        let entry = try enqueue(outbox, "enrollment/2", credential: "enrollment.2.token")
        _ = try outbox.lease(owner: "s", now: 1000, leaseSeconds: 30, limit: 1)
        let dead = try outbox.deadLetter(id: entry.id, owner: "s", reason: "HTTP 422", now: 1001)
        XCTAssertEqual(dead.credential, "enrollment.2.token")
        XCTAssertEqual(try outbox.requeue(deadLetterID: dead.id, now: 1002).credential, "enrollment.2.token")
    }

    func testPauseAfterConsecutiveFailuresAndResume() throws {
        let (_, state) = try open()
        for index in 1...4 {
            let now = 1000 + Double(index)
            let after = try state.recordFailure("HTTP 503", now: now, pauseAfter: 5, pauseSeconds: 300)
            XCTAssertEqual(after.consecutiveFailures, index)
            XCTAssertFalse(after.isPaused(now: now))
        }
        let paused = try state.recordFailure("could not connect", now: 1005, pauseAfter: 5, pauseSeconds: 300)
        XCTAssertTrue(paused.isPaused(now: 1005))
        XCTAssertEqual(paused.pausedUntil, 1305)
        XCTAssertEqual(paused.pauseReason, "5 consecutive failures, the last: could not connect")
        XCTAssertEqual(paused.lastFailure, "could not connect")
        XCTAssertFalse(paused.isPaused(now: 1305))

        try state.resume(now: 1010)
        let resumed = try state.sender()
        XCTAssertEqual(resumed.consecutiveFailures, 0)
        XCTAssertNil(resumed.pausedUntil)
        // The last failure stays visible for the operator.
        XCTAssertEqual(resumed.lastFailure, "could not connect")

        _ = try state.recordFailure("HTTP 503", now: 1011, pauseAfter: 5, pauseSeconds: 300)
        try state.recordSuccess(now: 1012)
        XCTAssertEqual(try state.sender().consecutiveFailures, 0)
    }

    func testUpgradeRequiredIsPerAppVersion() throws {
        let (_, state) = try open()
        try state.setUpgradeRequired(appVersion: "0.1.0", message: "Please update edge.", now: 1000)
        XCTAssertTrue(try state.sender().upgradeRequired(appVersion: "0.1.0"))
        XCTAssertFalse(try state.sender().upgradeRequired(appVersion: "0.2.0"))
        try state.clearUpgradeRequired(now: 1001)
        XCTAssertNil(try state.sender().upgradeRequiredVersion)
    }

    func testCursorIsWrittenWithTheCallersTransaction() throws {
        let (outbox, state) = try open()
        XCTAssertNil(try state.cursor(stream: "changes"))
        struct Rollback: Error {}
        XCTAssertThrowsError(try outbox.database.dbWriter.write { db in
            try state.setCursor(db, "c1", stream: "changes", now: 1000)
            throw Rollback()
        })
        XCTAssertNil(try state.cursor(stream: "changes"))
        try outbox.database.dbWriter.write { db in try state.setCursor(db, "c2", stream: "changes", now: 1000) }
        try outbox.database.dbWriter.write { db in try state.setCursor(db, "c3", stream: "changes", now: 1001) }
        XCTAssertEqual(try state.cursor(stream: "changes"), "c3")
    }

    func testMakeAllDueBringsBackedOffEntriesForward() throws {
        let (outbox, _) = try open()
        let entry = try enqueue(outbox, "a")
        _ = try outbox.lease(owner: "s", now: 1000, leaseSeconds: 30, limit: 1)
        try outbox.retryLater(id: entry.id, owner: "s", at: 4000, error: "HTTP 503")  // within the hour anything waits (ScheduledWait)
        XCTAssertEqual(try outbox.lease(owner: "s", now: 1001, leaseSeconds: 30, limit: 1), [])
        XCTAssertEqual(try outbox.makeAllDue(now: 1001), 1)
        XCTAssertEqual(try outbox.lease(owner: "s", now: 1001, leaseSeconds: 30, limit: 1).map(\.id), [entry.id])
    }

    /// The usage counter kept by triggers equals a recount after every kind of state change.
    func testUsageCounterMatchesARecount() throws {
        let (outbox, _) = try open()
        func recount() throws -> (Int, Int) {
            try outbox.database.dbWriter.read { db in
                let row = try XCTUnwrap(try Row.fetchOne(db, sql: """
                    SELECT (SELECT COUNT(*) FROM outbox) + (SELECT COUNT(*) FROM dead_letters) AS entries,
                           (SELECT IFNULL(SUM(LENGTH(payload)), 0) FROM outbox) + (SELECT IFNULL(SUM(LENGTH(payload)), 0) FROM dead_letters) AS bytes
                    """))
                return (row["entries"], row["bytes"])
            }
        }
        func check(_ step: String) throws {
            let usage = try outbox.usage()
            let (entries, bytes) = try recount()
            XCTAssertEqual(usage.entries, entries, step)
            XCTAssertEqual(usage.bytes, bytes, step)
        }
        let entries = try (0..<4).map { index in try enqueue(outbox, "s\(index)") }
        try check("enqueued")
        XCTAssertEqual(try outbox.lease(owner: "s", now: 1000, leaseSeconds: 30, limit: 10).count, 4)
        try outbox.complete(id: entries[0].id, owner: "s")
        try check("completed")
        let dead = try outbox.deadLetter(id: entries[1].id, owner: "s", reason: "422")
        try check("dead-lettered")
        try outbox.requeue(deadLetterID: dead.id)
        try check("re-queued")
        try outbox.recordConflict(id: entries[2].id, owner: "s", serverVersion: [])
        try check("conflict")
        XCTAssertEqual(try outbox.usage().entries, 2)
    }
}
