import EdgeContract
@testable import EdgePush
import EdgeStore
import GRDB
import XCTest

/// Notifications from pulled changes and confirmed GRNs (PSH-1, PSH-5, RCV-7), recorded inside
/// the transaction of what raised them; batch intake and settlement (PSH-10, PSH-11).
final class PushIntakeTests: XCTestCase {
    private var path = ""
    // Berlin, June: 12:00 local = 10:00Z, outside the default quiet hours.
    private let noon = utc(2026, 6, 15, 10)

    override func setUpWithError() throws {
        path = try makeDatabasePath(self)
    }

    private func openStore() throws -> PushStore {
        try PushStore(database: EdgeDatabase(path: path), stationZone: "Europe/Berlin")
    }

    private func change(_ id: String, _ kind: String, _ payload: JSONValue) -> SyncChange {
        SyncChange(id: id, stream: "push:anna", kind: kind, changedAt: "2026-06-15T12:00:00+02:00", payload: payload)
    }

    private let approval: JSONValue = .object([
        "user_id": .string("anna"), "type": .string("APPROVAL_PENDING"), "priority": .string("HIGH"),
        "title": .string("Approval needed: PO-2026-00077"), "body": .string("Office chairs"), "deep_link": .string("/approvals/77"),
    ])

    func testPulledNotificationsAndBadgeEventsApplyInThePullTransaction() throws {
        let store = try openStore()
        let intake = PushIntake(store: store)
        let report = try store.database.dbWriter.write { db in
            try intake.apply(db, [
                change("c1", "NOTIFICATION", approval),
                change("c2", "NOTIFICATION", .object(["user_id": .string("anna"), "type": .string("KPI_ALERT"), "priority": .string("NORMAL"),
                                                      "title": .string("Dock 3 throughput below target"), "body": .string(""), "ttl_seconds": .integer(600)])),
                change("c3", "PO_UPDATED", .object(["po_number": .string("PO-2026-00042")])),
            ], now: noon)
        }
        XCTAssertEqual(report.notifications, 2)
        XCTAssertEqual(report.refused, [])
        let queued = try store.notifications(userID: "anna", status: .queued)
        XCTAssertEqual(queued.map(\.type), [.approvalPending, .kpiAlert])
        XCTAssertEqual(queued.first?.deepLink, "/approvals/77")
        XCTAssertEqual(queued.first?.expiresAt, noon + PushIntake.defaultTTLSeconds, "TTL counts from receipt, a day by default")
        XCTAssertEqual(queued.last?.expiresAt, noon + 600)
        XCTAssertEqual(try store.badge(for: "anna"), 2)

        let events = try store.database.dbWriter.write { db in
            try intake.apply(db, [change("c4", "APPROVAL_RESOLVED", .object(["user_id": .string("anna")]))], now: noon + 60)
        }
        XCTAssertEqual(events.badgeEvents, 1)
        XCTAssertEqual(try store.badge(for: "anna"), 1, "one pending approval fewer")
        try store.database.dbWriter.write { db in
            _ = try intake.apply(db, [change("c5", "INBOX_OPENED", .object(["user_id": .string("anna")]))], now: noon + 120)
        }
        XCTAssertEqual(try store.badge(for: "anna"), 0)
    }

    /// PSH-11: the app's receipts, passed on by the backend as PUSH_RECEIPT changes, move the
    /// durable record; repeats and a DELIVERED after OPENED change nothing; a receipt for a
    /// record never sent, an unknown id or a malformed payload is refused with the reason.
    func testReceiptsMoveSentRecordsToDeliveredAndOpened() throws {
        let store = try openStore()
        let intake = PushIntake(store: store)
        try store.database.dbWriter.write { db in
            _ = try intake.apply(db, [change("c1", "NOTIFICATION", approval), change("c2", "NOTIFICATION", approval)], now: noon)
        }
        let ids = try store.notifications(userID: "anna", status: .queued).map(\.id)
        XCTAssertEqual(ids.count, 2)
        try store.updateStatus(notificationID: ids[0], to: .sent, now: noon + 1)
        XCTAssertEqual(try store.badge(for: "anna"), 2)
        func receipt(_ id: String, _ fields: [String: JSONValue]) -> SyncChange { change(id, "PUSH_RECEIPT", .object(fields)) }
        let report = try store.database.dbWriter.write { db in
            try intake.apply(db, [
                receipt("r1", ["notification_id": .string(String(ids[0])), "status": .string("DELIVERED")]),
                receipt("r2", ["notification_id": .string(String(ids[0])), "status": .string("DELIVERED")]),
                receipt("r3", ["notification_id": .string(String(ids[0])), "status": .string("OPENED")]),
                receipt("r4", ["notification_id": .string(String(ids[0])), "status": .string("DELIVERED")]),
                receipt("r5", ["notification_id": .string(String(ids[1])), "status": .string("OPENED")]),
                receipt("r6", ["notification_id": .string("999999"), "status": .string("OPENED")]),
                receipt("r7", ["notification_id": .string(String(ids[0])), "digest_id": .string("1"), "status": .string("OPENED")]),
                receipt("r8", ["notification_id": .string(String(ids[0])), "status": .string("READ")]),
            ], now: noon + 60)
        }
        XCTAssertEqual(report.receipts, ["DELIVERED": 1, "OPENED": 1])
        XCTAssertEqual(report.refused.map { String($0.prefix(2)) }, ["r5", "r6", "r7", "r8"])
        let record = try store.notification(id: ids[0])
        XCTAssertEqual(record.status, .opened)
        XCTAssertEqual(try store.notification(id: ids[1]).status, .queued, "never sent: a receipt cannot move it")
        XCTAssertEqual(try store.badge(for: "anna"), 1, "the opened one left the badge")
    }

    func testBadPayloadsAreRefusedWithTheReasonAndTheRestOfThePageApplies() throws {
        let store = try openStore()
        let intake = PushIntake(store: store)
        var unknownType = approval
        if case .object(var fields) = approval {
            fields["type"] = .string("NEWSLETTER")
            unknownType = .object(fields)
        }
        let report = try store.database.dbWriter.write { db in
            try intake.apply(db, [
                change("bad-shape", "NOTIFICATION", .string("not an object")),
                change("bad-type", "NOTIFICATION", unknownType),
                change("bad-title", "NOTIFICATION", .object(["user_id": .string("anna"), "type": .string("KPI_ALERT"), "priority": .string("NORMAL"),
                                                             "title": .string(""), "body": .string("")])),
                change("bad-user", "INBOX_OPENED", .object(["user": .string("anna")])),
                change("good", "NOTIFICATION", approval),
            ], now: noon)
        }
        XCTAssertEqual(report.notifications, 1)
        XCTAssertEqual(report.refused.count, 4)
        XCTAssertTrue(report.refused[0].hasPrefix("bad-shape: the payload is not a notification"), report.refused[0])
        XCTAssertEqual(report.refused[1], "bad-type: The notification type NEWSLETTER is not one the relay knows.")
        XCTAssertTrue(report.refused[2].hasPrefix("bad-title: A notification needs a title"), report.refused[2])
        XCTAssertEqual(report.refused[3], "bad-user: the payload names no valid user_id")
        XCTAssertEqual(try store.notifications(userID: "anna", status: .queued).count, 1)
    }

    func testConfirmedGRNNotifiesTheReceivingTeamAndRollsBackWithItsTransaction() throws {
        let store = try openStore()
        let intake = PushIntake(store: store, receivingTeam: ["dock-lead", "buyer"])
        let grn = try ContractCoding.encode(GRNConfirmRequest(poNumber: "PO-2026-00042", confirmedAt: "2026-06-15T12:00:00.000+02:00",
                                                              lines: [GRNLine(lineNo: 1, received: 120), GRNLine(lineNo: 2, received: 50)]))
        let recorded = try store.database.dbWriter.write { db in try intake.grnConfirmed(db, payload: grn, now: noon) }
        XCTAssertEqual(recorded, 2)
        let lead = try store.notifications(userID: "dock-lead", status: .queued)
        XCTAssertEqual(lead.map(\.type), [.deliveryUpdate])
        XCTAssertEqual(lead.first?.title, "Goods received: PO-2026-00042")
        XCTAssertEqual(lead.first?.body, "2 lines confirmed at the dock")
        XCTAssertEqual(lead.first?.deepLink, "/purchase-orders/PO-2026-00042")
        XCTAssertEqual(try store.notifications(userID: "buyer", status: .queued).count, 1)

        // The completing transaction fails after the intake: no notification without the GRN.
        struct Abort: Error {}
        XCTAssertThrowsError(try store.database.dbWriter.write { db in
            try intake.grnConfirmed(db, payload: grn, now: noon + 1)
            throw Abort()
        })
        XCTAssertEqual(try store.notifications(userID: "buyer", status: .queued).count, 1)
        // Our own payload unreadable: the team still hears of it; no team, nothing.
        XCTAssertEqual(try store.database.dbWriter.write { db in try intake.grnConfirmed(db, payload: Array("{}".utf8), now: noon + 2) }, 2)
        XCTAssertEqual(try store.notifications(userID: "buyer", status: .queued).last?.title, "Goods received")
        XCTAssertEqual(try store.database.dbWriter.write { db in try PushIntake(store: store).grnConfirmed(db, payload: grn, now: noon) }, 0)
    }

    func testBatchIntakeDispatchAndSettlement() throws {
        let store = try openStore()
        _ = try store.registerDevice(userID: "anna", token: "phone-a", platform: .android, now: noon)
        _ = try store.registerDevice(userID: "ben", token: "phone-b", platform: .ios, now: noon)
        let batch = try (0..<50).map { i in
            try PushNotification(userID: i % 2 == 0 ? "anna" : "ben", type: .kpiAlert, priority: .normal, title: "Alert \(i)", body: "",
                                 ttlSeconds: 3600, createdAt: noon)
        }
        let accepted = try store.accept(batch, now: noon)
        XCTAssertEqual(accepted.count, 50)
        XCTAssertEqual(Set(accepted.map(\.record.tag)).count, 50, "every record has its own stable tag")
        XCTAssertEqual(accepted.last?.badge, 25)

        let due = try store.dueDispatches(now: noon, limit: 40)
        XCTAssertEqual(due.count, 40)
        XCTAssertEqual(due.first?.devices.map(\.token), ["phone-a"])
        XCTAssertEqual(due.first?.badge, 25)
        XCTAssertEqual(due[1].devices.map(\.token), ["phone-b"])

        // Settled in one transaction; a target already settled elsewhere is left alone.
        let first = try XCTUnwrap(accepted.first?.record.id)
        try store.updateStatus(notificationID: first, to: .failed, reason: "settled by another process", now: noon)
        let changed = try store.settle(due.map { PushSettlement($0.target, .sent) } + [PushSettlement(.notification(first), .sent)],
                                       retiring: [RetiredToken(token: "phone-b", reason: "UNREGISTERED")], now: noon + 1)
        XCTAssertEqual(changed, 39)
        XCTAssertEqual(try store.notification(id: first).status, .failed)
        XCTAssertEqual(try store.statusCounts()[.sent], 39)
        XCTAssertEqual(try store.activeDevices(for: "ben"), [])
        XCTAssertEqual(try store.dueDispatches(now: noon, limit: 100).count, 10)
        let overview = try store.overview()
        XCTAssertEqual(overview.counts[.queued], 10)
        XCTAssertEqual(overview.activeDevices, 1)
        XCTAssertEqual(overview.retiredDevices, 1)
        XCTAssertEqual(overview.users, 2)
    }
}
