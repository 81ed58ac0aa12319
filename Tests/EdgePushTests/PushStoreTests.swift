@testable import EdgePush
import EdgeStore
import EdgeTestSupport
import GRDB
import XCTest

final class PushStoreTests: XCTestCase {
    private var path = ""

    override func setUpWithError() throws {
        path = try makeDatabasePath(self)
    }

    private func openStore() throws -> PushStore {
        try PushStore(database: EdgeDatabase(path: path), stationZone: "Europe/Berlin")
    }

    private func note(_ type: NotificationType = .assignmentCreated, _ priority: NotificationPriority = .normal, user: String = "anna",
                      title: String = "PO-2026-00042 assigned", ttl: Int64 = 24 * 3600, at createdAt: Int64) throws -> PushNotification {
        try PushNotification(userID: user, type: type, priority: priority, title: title, body: "Dock 3",
                             deepLink: "/assignments/42", ttlSeconds: ttl, createdAt: createdAt)
    }

    // Berlin, June: 23:00 local = 21:00Z (quiet until 05:00Z), 12:00 local = 10:00Z (open).
    private let night = utc(2026, 6, 15, 21)
    private let windowEnd = utc(2026, 6, 16, 5)
    private let noon = utc(2026, 6, 15, 10)

    // MARK: Preferences and devices (PSH-2)

    func testPreferencesDefaultsAndRoundTrip() throws {
        let store = try openStore()
        let defaults = try store.preferences(for: "anna")
        XCTAssertTrue(defaults.pushEnabled)
        XCTAssertNil(defaults.timeZone)
        XCTAssertEqual(defaults.quietHours, .standard)
        XCTAssertEqual(defaults.overrideTypes, [.approvalPending])
        XCTAssertTrue(defaults.disabledTypes.isEmpty)

        let custom = try PushPreferences(userID: "anna", pushEnabled: true, timeZone: "America/New_York", quietHours: quiet("23:30", "06:15"),
                                         overrideTypes: [.approvalPending, .anomalyAlert], disabledTypes: [.budgetWarning])
        try store.savePreferences(custom, now: noon)
        XCTAssertEqual(try store.preferences(for: "anna"), custom)
        assertPushError(.unknownZone) {
            try store.savePreferences(PushPreferences(userID: "anna", timeZone: "Europe/Atlantis"), now: noon)
        }
        assertPushError(.invalidZoneName) { try PushPreferences(userID: "anna", timeZone: "../../etc/shadow") }
        assertPushError(.invalidArgument) { try PushPreferences(userID: "") }
        assertPushError(.unknownZone) { try PushStore(database: EdgeDatabase(path: path), stationZone: "Nowhere/Land") }
    }

    func testAtMostThreeActiveDevicesOldestRetired() throws {
        let store = try openStore()
        for (index, token) in ["t1", "t2", "t3"].enumerated() {
            try store.registerDevice(userID: "anna", token: token, platform: .android, now: noon + Int64(index))
        }
        XCTAssertEqual(try store.activeDevices(for: "anna").map(\.token), ["t3", "t2", "t1"])
        try store.registerDevice(userID: "anna", token: "t4", platform: .ios, now: noon + 10)
        XCTAssertEqual(try store.activeDevices(for: "anna").map(\.token), ["t4", "t3", "t2"])
        // Re-registering a known token refreshes it instead of adding a device.
        try store.registerDevice(userID: "anna", token: "t2", platform: .android, now: noon + 20)
        XCTAssertEqual(try store.activeDevices(for: "anna").map(\.token), ["t2", "t4", "t3"])
        // A token that moves to another user leaves the first one.
        let moved = try store.registerDevice(userID: "ben", token: "t3", platform: .web, now: noon + 30)
        XCTAssertEqual(moved.platform, .web)
        XCTAssertEqual(try store.activeDevices(for: "anna").map(\.token), ["t2", "t4"])
        XCTAssertEqual(try store.activeDevices(for: "ben").map(\.token), ["t3"])
        XCTAssertTrue(try store.retireDevice(token: "t4", reason: "UNREGISTERED", now: noon + 40))
        XCTAssertFalse(try store.retireDevice(token: "t4", reason: "UNREGISTERED", now: noon + 41))
        XCTAssertEqual(try store.activeDevices(for: "anna").map(\.token), ["t2"])
        assertPushError(.invalidArgument) { try store.registerDevice(userID: "anna", token: "", platform: .ios, now: noon) }
    }

    // MARK: Decisions (PSH-3, PSH-4)

    /// Issue #31: accept picks each record's id itself so the tag is written with the row; ids
    /// stay above every id ever used, as AUTOINCREMENT keeps them, so a collapse tag is never
    /// reused for another notification, even after the newest record was deleted.
    func testRecordIDsAndTagsAreNeverReusedAfterADeletion() throws {
        let store = try openStore()
        let first = try store.accept(note(at: noon), now: noon).record
        let second = try store.accept(note(title: "second", at: noon), now: noon).record
        XCTAssertGreaterThan(second.id, first.id)
        try store.database.write { db in try db.execute(sql: "DELETE FROM push_notifications WHERE id = ?", arguments: [second.id]) }
        let third = try store.accept(note(title: "third", at: noon), now: noon).record
        XCTAssertGreaterThan(third.id, second.id)
        XCTAssertEqual(third.tag, "n-\(third.id)")
        let stored = try store.database.write { db in
            try String.fetchAll(db, sql: "SELECT tag FROM push_notifications ORDER BY id")
        }
        XCTAssertEqual(stored, ["n-\(first.id)", "n-\(third.id)"])
        // A batch in one transaction numbers each record on from the last.
        let batch = try store.accept([note(title: "a", at: noon), note(title: "b", at: noon)], now: noon).map(\.record.id)
        XCTAssertEqual(batch, [third.id + 1, third.id + 2])
    }

    func testDecisions() throws {
        let store = try openStore()
        let open = try store.accept(note(at: noon), now: noon)
        XCTAssertEqual(open.decision, .sendNow)
        XCTAssertEqual(open.record.status, .queued)
        XCTAssertEqual(open.record.tag, "n-\(open.record.id)")

        let held = try store.accept(note(at: night), now: night)
        XCTAssertEqual(held.decision, .hold(until: windowEnd))
        XCTAssertEqual(held.record.status, .held)
        XCTAssertEqual(held.record.heldUntil, windowEnd)

        // Urgent and override types bypass quiet hours.
        XCTAssertEqual(try store.accept(note(.kpiAlert, .urgent, at: night), now: night).decision, .sendNow)
        XCTAssertEqual(try store.accept(note(.approvalPending, .normal, at: night), now: night).decision, .sendNow)
        XCTAssertEqual(try store.accept(note(.anomalyAlert, .high, at: night), now: night).decision, .hold(until: windowEnd))

        // A disabled type or disabled push is suppressed with its reason, recorded as FAILED.
        try store.savePreferences(PushPreferences(userID: "anna", disabledTypes: [.deliveryUpdate]), now: noon)
        let typeOff = try store.accept(note(.deliveryUpdate, .urgent, at: noon), now: noon)
        XCTAssertEqual(typeOff.decision, .suppressed(.typeDisabled))
        XCTAssertEqual(typeOff.record.status, .failed)
        XCTAssertEqual(typeOff.record.reason, "type_disabled")
        try store.savePreferences(PushPreferences(userID: "anna", pushEnabled: false), now: noon)
        XCTAssertEqual(try store.accept(note(.approvalPending, .urgent, at: noon), now: noon).decision, .suppressed(.pushDisabled))
        // Already expired when it arrived.
        try store.savePreferences(PushPreferences(userID: "anna"), now: noon)
        XCTAssertEqual(try store.accept(note(ttl: 60, at: noon - 120), now: noon).decision, .suppressed(.expired))

        // The user's own zone decides: 21:00Z is 17:00 in New York.
        try store.savePreferences(PushPreferences(userID: "anna", timeZone: "America/New_York"), now: noon)
        XCTAssertEqual(try store.accept(note(at: night), now: night).decision, .sendNow)
    }

    // MARK: Release (PSH-4, PSH-6)

    func testDigestsPerUserAndGroupWithWordingTagsAndJitter() throws {
        let store = try openStore()
        try store.savePreferences(PushPreferences(userID: "anna", overrideTypes: []), now: noon)
        for index in 0 ..< 10 {
            try store.accept(note(.assignmentCreated, index < 3 ? .high : .normal, title: "Assignment \(index)", at: night), now: night + Int64(index))
        }
        try store.accept(note(.approvalPending, title: "Approve PO-2026-00042", at: night), now: night)
        try store.accept(note(.kpiAlert, user: "ben", title: "Scan rate low", at: night), now: night)
        try store.accept(note(.budgetWarning, .high, user: "ben", title: "Budget at 90 %", at: night), now: night)

        // Not before the window ends.
        var generator = SplitMix64(seed: 7)
        let early = try store.releaseHeld(now: windowEnd - 1, using: &generator)
        XCTAssertEqual(early.digests, [])
        XCTAssertEqual(try store.notifications(userID: "anna", status: .held).count, 11)

        let report = try store.releaseHeld(now: windowEnd, using: &generator)
        XCTAssertEqual(report.released, 13)
        XCTAssertEqual(report.expired, 0)
        XCTAssertEqual(report.digests.map(\.title), ["1 new approval", "10 new assignments - 3 urgent", "2 new alerts - 1 urgent"])
        XCTAssertEqual(report.digests.map(\.userID), ["anna", "anna", "ben"])
        XCTAssertEqual(report.digests[0].body, "Approve PO-2026-00042")
        XCTAssertEqual(report.digests[0].deepLink, "/assignments/42")
        XCTAssertEqual(report.digests[1].body, "Assignment 9 and 9 more")
        XCTAssertNil(report.digests[1].deepLink)
        for digest in report.digests {
            XCTAssertTrue((windowEnd ... windowEnd + 300).contains(digest.releaseAt))
            XCTAssertEqual(digest.tag, PushDigest.tag(userID: digest.userID, group: digest.group))
            XCTAssertLessThanOrEqual(digest.tag.utf8.count, 64)
        }
        XCTAssertEqual(Set(report.digests.map(\.tag)).count, 3)
        XCTAssertGreaterThan(Set(report.digests.map(\.releaseAt)).count, 1, "not all in the same second")
        XCTAssertEqual(try store.notifications(userID: "anna", status: .held), [])
        XCTAssertEqual(try store.notifications(userID: "anna", status: .queued).map(\.digestID).count, 11)
        XCTAssertEqual(try store.queuedNotifications(), [], "released notifications go out in their digest, not alone")

        // Nothing is released twice.
        XCTAssertEqual(try store.releaseHeld(now: windowEnd + 60, using: &generator).digests, [])
        // Due digests appear as their jittered time passes.
        XCTAssertEqual(try store.dueDigests(now: windowEnd + 300).count, 3)

        // The same user and group get the same tag the next night (a retry or a new digest replaces).
        try store.accept(note(.assignmentCreated, title: "Next night", at: night + 86_400), now: night + 86_400)
        let next = try store.releaseHeld(now: windowEnd + 86_400, using: &generator)
        XCTAssertEqual(next.digests.map(\.title), ["1 new assignment"])
        XCTAssertEqual(next.digests.first?.tag, report.digests[1].tag)
    }

    /// The sender reads on from a cursor while earlier reads are still being sent (PSH-10): each
    /// due notification and digest is read once, in order, and retries are read back by target.
    func testCursorReadsReturnEachDueItemOnceAndRetriesAreReadByTarget() throws {
        let store = try openStore()
        try store.savePreferences(PushPreferences(userID: "anna", overrideTypes: []), now: noon)
        _ = try store.registerDevice(userID: "anna", token: "phone-a", platform: .android, now: noon)
        // Three digests with jittered release times, then five notifications on their own.
        try store.accept(note(.approvalPending, title: "Approve", at: night), now: night)
        try store.accept(note(.assignmentCreated, title: "Assigned", at: night), now: night)
        try store.accept(note(.kpiAlert, user: "ben", title: "Scan rate low", at: night), now: night)
        var generator = SplitMix64(seed: 3)
        XCTAssertEqual(try store.releaseHeld(now: windowEnd, using: &generator).digests.count, 3)
        let later = windowEnd + 300
        let alone = try (0 ..< 5).map { try store.accept(note(.kpiAlert, title: "Alert \($0)", at: later), now: later).record.id }

        var cursor = DispatchCursor()
        var read: [PushTarget] = []
        while true {
            let page = try store.dueDispatches(now: later, limit: 2, after: cursor)
            if page.isEmpty { break }
            read += page.map(\.target)
            cursor = cursor.advanced(past: page)
        }
        let digests = try store.dueDigests(now: later)
        XCTAssertEqual(read.filter { if case .notification = $0 { true } else { false } }, alone.map { .notification($0) })
        XCTAssertEqual(read.filter { if case .digest = $0 { true } else { false } }, digests.map { .digest($0.id) },
                       "digests once each, in release order")
        XCTAssertEqual(try store.dueDispatches(now: later, limit: 100, after: cursor), [])
        XCTAssertEqual(try store.dueDispatches(now: later, limit: 100).count, 8, "from the start: everything still QUEUED")

        // Read back by target: only what is still QUEUED (and, for digests, due).
        try store.settle([PushSettlement(.notification(alone[0]), .sent)], now: later)
        let back = try store.dispatches(for: [.notification(alone[0]), .notification(alone[3]), .digest(digests[0].id)], now: later)
        XCTAssertEqual(back.map(\.target), [.notification(alone[3]), .digest(digests[0].id)])
        XCTAssertEqual(back.first?.devices.map(\.token), ["phone-a"])
        XCTAssertEqual(try store.dispatches(for: [.digest(digests[0].id)], now: windowEnd - 1), [], "a digest not yet due")
    }

    func testJitterIsReproducibleWithASeed() throws {
        func releaseTimes() throws -> [Int64] {
            path = try makeDatabasePath(self)
            let store = try openStore()
            for user in ["a", "b", "c", "d"] { try store.accept(note(user: user, at: night), now: night) }
            var generator = SplitMix64(seed: 42)
            return try store.releaseHeld(now: windowEnd, spreadSeconds: 240, using: &generator).digests.map(\.releaseAt)
        }
        let first = try releaseTimes()
        XCTAssertEqual(first.count, 4, "one digest per user; none and the checks below pass on nothing")
        XCTAssertEqual(first, try releaseTimes())
        XCTAssertTrue(first.allSatisfy { (windowEnd ... windowEnd + 240).contains($0) })
    }

    func testExpiredWhileHeldAreDroppedAndCounted() throws {
        let store = try openStore()
        try store.accept(note(title: "Short", ttl: 3600, at: night), now: night)
        try store.accept(note(title: "Long", ttl: 12 * 3600, at: night), now: night)
        XCTAssertEqual(try store.badge(for: "anna"), 2)
        let report = try store.releaseHeld(now: windowEnd, spreadSeconds: 0)
        XCTAssertEqual(report.expired, 1)
        XCTAssertEqual(report.released, 1)
        XCTAssertEqual(report.digests.map(\.title), ["1 new assignment"])
        XCTAssertEqual(report.digests.first?.releaseAt, windowEnd)
        let failed = try store.notifications(userID: "anna", status: .failed)
        XCTAssertEqual(failed.map(\.title), ["Short"])
        XCTAssertEqual(failed.first?.reason, "expired_while_held")
        XCTAssertEqual(try store.badge(for: "anna"), 1)
        XCTAssertEqual(try store.statusCounts()[.failed], 1)
    }

    /// PSH-4: held notifications survive a restart; a release survives one too and is not repeated.
    func testRestartWhileHeldLosesNothingAndReleasesOnce() throws {
        var store = try openStore()
        try store.accept(note(title: "One", at: night), now: night)
        try store.accept(note(title: "Two", at: night), now: night + 5)
        try store.database.close()

        store = try openStore()
        XCTAssertEqual(try store.notifications(userID: "anna", status: .held).map(\.title), ["One", "Two"])
        XCTAssertEqual(try store.badge(for: "anna"), 2)
        let report = try store.releaseHeld(now: windowEnd)
        XCTAssertEqual(report.digests.map(\.title), ["2 new assignments"])
        try store.database.close()

        store = try openStore()
        XCTAssertEqual(try store.releaseHeld(now: windowEnd + 600).digests, [])
        XCTAssertEqual(try store.dueDigests(now: windowEnd + 600).map(\.id), report.digests.map(\.id))
        XCTAssertEqual(try store.statusCounts()[.queued], 2)
        XCTAssertEqual(try store.statusCounts()[.held], 0)
        XCTAssertEqual(try store.badge(for: "anna"), 2)
    }

    // MARK: Status and badge (PSH-5, PSH-11)

    func testStatusTransitionsAndDigestPropagation() throws {
        let store = try openStore()
        let sent = try store.accept(note(at: noon), now: noon).record
        try store.updateStatus(notificationID: sent.id, to: .sent, now: noon + 1)
        try store.updateStatus(notificationID: sent.id, to: .sent, now: noon + 2) // a retried callback
        try store.updateStatus(notificationID: sent.id, to: .delivered, now: noon + 3)
        assertPushError(.invalidTransition) { try store.updateStatus(notificationID: sent.id, to: .queued, now: noon + 4) }
        assertPushError(.notFound) { try store.updateStatus(notificationID: 9999, to: .sent, now: noon) }
        XCTAssertEqual(try store.notification(id: sent.id).status, .delivered)

        try store.accept(note(at: night), now: night)
        let digest = try XCTUnwrap(store.releaseHeld(now: windowEnd, spreadSeconds: 0).digests.first)
        try store.updateDigestStatus(digestID: digest.id, to: .sent, now: windowEnd + 1)
        try store.updateDigestStatus(digestID: digest.id, to: .failed, reason: "INVALID_ARGUMENT payload", now: windowEnd + 2)
        let carried = try store.notifications(userID: "anna", status: .failed)
        XCTAssertEqual(carried.count, 1)
        XCTAssertEqual(carried.first?.reason, "INVALID_ARGUMENT payload")
    }

    func testBadgeCountsResetsNeverNegativeAndSurvivesRestart() throws {
        var store = try openStore()
        try store.accept(note(.approvalPending, at: noon), now: noon)
        try store.accept(note(.approvalPending, at: noon), now: noon)
        let update = try store.accept(note(.deliveryUpdate, at: noon), now: noon)
        XCTAssertEqual(update.badge, 3)
        try store.savePreferences(PushPreferences(userID: "anna", pushEnabled: false), now: noon)
        XCTAssertEqual(try store.accept(note(.deliveryUpdate, at: noon), now: noon).badge, 3, "suppressed ones are not counted")
        XCTAssertEqual(try store.approvalResolved(userID: "anna", now: noon), 2)

        try store.updateStatus(notificationID: update.record.id, to: .sent, now: noon)
        try store.updateStatus(notificationID: update.record.id, to: .opened, now: noon)
        XCTAssertEqual(try store.badge(for: "anna"), 1)
        try store.database.close()

        store = try openStore()
        XCTAssertEqual(try store.badge(for: "anna"), 1)
        XCTAssertEqual(try store.inboxOpened(userID: "anna", now: noon), 0)
        XCTAssertEqual(try store.approvalResolved(userID: "anna", now: noon), 0, "never negative")
        XCTAssertEqual(try store.badge(for: "nobody"), 0)
        try store.savePreferences(PushPreferences(userID: "anna"), now: noon)
        XCTAssertEqual(try store.accept(note(.kpiAlert, at: noon), now: noon).badge, 1)
    }

    func testRetentionPurgeAndStatusCounts() throws {
        let store = try openStore()
        let old = try store.accept(note(at: noon), now: noon).record
        try store.updateStatus(notificationID: old.id, to: .sent, now: noon)
        try store.accept(note(at: night), now: night) // held: never purged
        try store.accept(note(at: noon), now: noon) // queued: never purged
        var counts = try store.statusCounts()
        XCTAssertEqual(counts[.sent], 1)
        XCTAssertEqual(counts[.held], 1)
        XCTAssertEqual(counts[.queued], 1)
        XCTAssertEqual(counts[.opened], 0)
        XCTAssertEqual(counts.count, NotificationStatus.allCases.count)

        XCTAssertEqual(try store.purge(now: noon + PushStore.retentionSeconds), 0, "exactly 90 days is kept")
        XCTAssertEqual(try store.purge(now: noon + PushStore.retentionSeconds + 1), 1)
        counts = try store.statusCounts()
        XCTAssertEqual(counts[.sent], 0)
        XCTAssertEqual(counts[.held], 1)
        XCTAssertEqual(counts[.queued], 1)
    }

    func testDigestWording() {
        XCTAssertEqual(NotificationGroup.approvals.summary(count: 1, urgent: 0), "1 new approval")
        XCTAssertEqual(NotificationGroup.approvals.summary(count: 2, urgent: 0), "2 new approvals")
        XCTAssertEqual(NotificationGroup.assignments.summary(count: 10, urgent: 3), "10 new assignments - 3 urgent")
        XCTAssertEqual(NotificationGroup.alerts.summary(count: 1, urgent: 1), "1 new alert - 1 urgent")
        XCTAssertEqual(NotificationGroup.deliveries.summary(count: 1, urgent: 0), "1 delivery update")
        XCTAssertEqual(NotificationGroup.enrollments.summary(count: 4, urgent: 0), "4 enrollment updates")
        XCTAssertEqual(NotificationType.budgetWarning.group, .alerts)
    }

    func testMigrationV3CreatesTables() throws {
        let database = try EdgeDatabase(path: path)
        let tables = try database.dbWriter.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'push_%' ORDER BY name")
        }
        XCTAssertEqual(tables, ["push_badges", "push_devices", "push_digests", "push_notifications", "push_users"])
    }

    func testTheDueReadUsesTheIndexOfRowsStillToSend() throws {
        // Run at the start of every send pass: it must not walk the SENT history kept 90 days.
        let store = try PushStore(database: EdgeDatabase(path: path), stationZone: "Europe/Berlin")
        let plan = try store.database.dbWriter.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + PushStore.dueNotificationsSQL, arguments: [0, 1000])
                .map { $0["detail"] as String? ?? "" }
        }
        XCTAssertTrue(plan.allSatisfy { $0.contains("push_notifications_queued") }, "\(plan)")
    }

}
