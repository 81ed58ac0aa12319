import EdgeContract
import EdgeStandin
import XCTest

/// GRN confirmation: quantity rules (RCV-2), the server wins on a received order (RCV-3), and the
/// change reaches the pull log.
final class StandinGRNTests: StandinTestCase {
    private func grn(_ po: String, _ lines: [GRNLine]) -> GRNConfirmRequest {
        GRNConfirmRequest(poNumber: po, confirmedAt: "2026-11-20T09:14:03.250+01:00", lines: lines,
                          photos: [GRNPhoto(sha256: String(repeating: "ab", count: 32))])
    }

    func testAPartialThenCompleteDeliveryUpdatesTheOrderAndThePullLog() async throws {
        let first = try await client.post(APIPath.grnConfirm, grn(DemoData.openOrder, [
            GRNLine(lineNo: 1, received: 100, discrepancy: .short, note: "20 to follow"), GRNLine(lineNo: 3, received: 250.5),
        ]), idempotencyKey: UUID().uuidString).response()
        XCTAssertEqual(first.status, 200)
        let receipt = try first.decode(GRNConfirmResponse.self)
        XCTAssertEqual(receipt.poNumber, DemoData.openOrder)
        XCTAssertEqual(receipt.status, .confirmed)
        XCTAssertEqual(standin.backend.purchaseOrder(DemoData.openOrder)?.status, .partiallyReceived)

        let rest = try await client.post(APIPath.grnConfirm, grn(DemoData.openOrder, [
            GRNLine(lineNo: 1, received: 20), GRNLine(lineNo: 2, received: 50),
        ]), idempotencyKey: UUID().uuidString).response()
        XCTAssertEqual(rest.status, 200)
        let order = try XCTUnwrap(standin.backend.purchaseOrder(DemoData.openOrder))
        XCTAssertEqual(order.status, .received)
        XCTAssertEqual(order.lines.map(\.received), [120, 50, 250.5])

        let pulled = try await client.get(APIPath.syncPull).response().decode(SyncPullResponse.self)
        XCTAssertEqual(pulled.changes.map(\.kind), ["PO_UPDATED", "PO_UPDATED"])
        XCTAssertEqual(pulled.changes.last?.stream, "po:\(DemoData.openOrder)")
        let pulledOrder = try ContractCoding.decode(PurchaseOrder.self, from: ContractCoding.encode(try XCTUnwrap(pulled.changes.last?.payload)))
        XCTAssertEqual(pulledOrder, order)

        // Now received: a further confirmation is a conflict.
        let late = try await client.post(APIPath.grnConfirm, grn(DemoData.openOrder, [GRNLine(lineNo: 2, received: 1, discrepancy: .excess)]),
                                          idempotencyKey: UUID().uuidString).response()
        XCTAssertEqual(late.status, 409)
    }

    func testAReceivedOrderIsAConflictTheServerWins() async throws {
        let key = UUID().uuidString
        let answer = try await client.post(APIPath.grnConfirm, grn(DemoData.receivedOrder, [GRNLine(lineNo: 1, received: 12)]), idempotencyKey: key).response()
        XCTAssertEqual(answer.status, 409)
        XCTAssertEqual(answer.errorCode, "CONFLICT")
        let envelope = try answer.decode(APIErrorEnvelope.self)
        let details = try ContractCoding.decode(GRNConflictDetails.self, from: ContractCoding.encode(try XCTUnwrap(envelope.error.details)))
        XCTAssertEqual(details.serverVersion, standin.backend.purchaseOrder(DemoData.receivedOrder))
        XCTAssertTrue(details.changes.contains("line 1 12 of 12 roll received"), details.changes)
        XCTAssertEqual(standin.backend.applications(ofKey: key), 0)
        // The refusal is the key's answer: replayed, still not applied.
        let again = try await client.post(APIPath.grnConfirm, grn(DemoData.receivedOrder, [GRNLine(lineNo: 1, received: 12)]), idempotencyKey: key).response()
        XCTAssertEqual(again.status, 409)
        XCTAssertEqual(again.header(SyncHeaderName.idempotentReplayed), "true")
        XCTAssertEqual(standin.backend.changes, [])
    }

    func testQuantitiesAreValidated() async throws {
        let cases: [(String, [GRNLine], Int)] = [
            ("negative", [GRNLine(lineNo: 1, received: -1)], 422),
            ("excess not flagged", [GRNLine(lineNo: 1, received: 41)], 422),  // 60 ordered, 20 received: 40 outstanding
            ("excess flagged as damaged", [GRNLine(lineNo: 1, received: 41, discrepancy: .damaged)], 422),
            ("unknown line", [GRNLine(lineNo: 9, received: 1)], 422),
            ("line twice", [GRNLine(lineNo: 1, received: 1), GRNLine(lineNo: 1, received: 1)], 422),
        ]
        for (name, lines, status) in cases {
            let answer = try await client.post(APIPath.grnConfirm, grn(DemoData.partialOrder, lines), idempotencyKey: UUID().uuidString).response()
            XCTAssertEqual(answer.status, status, name)
            XCTAssertEqual(answer.errorCode, "INVALID_REQUEST", name)
        }
        XCTAssertEqual(standin.backend.purchaseOrder(DemoData.partialOrder)?.lines.first?.received, 20)

        let flagged = try await client.post(APIPath.grnConfirm, grn(DemoData.partialOrder, [GRNLine(lineNo: 1, received: 45, discrepancy: .excess)]),
                                             idempotencyKey: UUID().uuidString).response()
        XCTAssertEqual(flagged.status, 200)
        XCTAssertEqual(standin.backend.purchaseOrder(DemoData.partialOrder)?.lines.first?.received, 65)
        XCTAssertEqual(standin.backend.purchaseOrder(DemoData.partialOrder)?.status, .received)

        let unknown = try await client.post(APIPath.grnConfirm, grn("PO-2026-09999", [GRNLine(lineNo: 1, received: 1)]), idempotencyKey: UUID().uuidString).response()
        XCTAssertEqual(unknown.status, 404)
    }

    /// RCV-10: the GS1 data on a line is checked as a backend would check it.
    func testTrackingIsValidated() async throws {
        typealias T = GRNLine.Tracking
        let cases: [(String, [T])] = [
            ("more traced than received", [T(lot: "L1", quantity: 3), T(lot: "L2", quantity: 3)]),
            ("a quantity of 0", [T(lot: "L1", quantity: 0)]),
            ("a serial for two", [T(serial: "S1", quantity: 2)]),
            ("a serial twice", [T(serial: "S1", quantity: 1), T(serial: "S1", quantity: 1)]),
            ("a lot of 21 characters", [T(lot: String(repeating: "L", count: 21), quantity: 1)]),
            ("an empty serial", [T(serial: "", quantity: 1)]),
            ("the 31st of April", [T(expiry: "2027-04-31", quantity: 1)]),
            ("not ISO", [T(expiry: "31.03.2027", quantity: 1)]),
        ]
        for (name, tracking) in cases {
            let answer = try await client.post(APIPath.grnConfirm, grn(DemoData.openOrder, [GRNLine(lineNo: 2, received: 5, tracking: tracking)]),
                                               idempotencyKey: UUID().uuidString).response()
            XCTAssertEqual(answer.status, 422, name)
            XCTAssertEqual(answer.errorCode, "INVALID_REQUEST", name)
        }
        XCTAssertEqual(standin.backend.purchaseOrder(DemoData.openOrder)?.lines[1].received, 0)
        let lines = [GRNLine(lineNo: 2, received: 5, tracking: [T(lot: "L1", expiry: "2028-02-29", quantity: 3), T(serial: "S1", quantity: 1)])]
        let good = try await client.post(APIPath.grnConfirm, grn(DemoData.openOrder, lines), idempotencyKey: UUID().uuidString).response()
        XCTAssertEqual(good.status, 200)
        XCTAssertEqual(standin.backend.appliedGRNs.last?.lines, lines)
    }
}
