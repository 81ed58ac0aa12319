import EdgeContract
import EdgeStandin
import XCTest

/// A repeated Idempotency-Key gets the first answer and is never applied twice (SYN-7, SYN-12).
final class StandinIdempotencyTests: StandinTestCase {
    func testARepeatedPushGetsTheFirstAnswerMarkedDuplicate() async throws {
        let key = UUID().uuidString
        let entry = StandinClient.pushEntry(sequence: 1)
        let first = try await client.post(APIPath.syncPush, entry, idempotencyKey: key).response()
        XCTAssertEqual(first.status, 200)
        XCTAssertNil(first.header(SyncHeaderName.idempotentReplayed))
        let applied = try first.decode(SyncPushResponse.self)
        XCTAssertEqual(applied.status, .applied)
        XCTAssertEqual(applied.idempotencyKey, key)

        let second = try await client.post(APIPath.syncPush, entry, idempotencyKey: key).response()
        XCTAssertEqual(second.status, 200)
        XCTAssertEqual(second.header(SyncHeaderName.idempotentReplayed), "true")
        let duplicate = try second.decode(SyncPushResponse.self)
        XCTAssertEqual(duplicate.status, .duplicate)
        XCTAssertEqual(duplicate.serverSequence, applied.serverSequence)
        XCTAssertEqual(duplicate.appliedAt, applied.appliedAt)

        XCTAssertEqual(standin.backend.applications(ofKey: key), 1)
        XCTAssertEqual(standin.applied.first?.replays, 1)
        XCTAssertEqual(standin.applied.first?.stream, "scans")
        XCTAssertEqual(standin.backend.pushes, [entry])
    }

    func testTheSameKeyWithAnotherBodyIs422() async throws {
        let key = UUID().uuidString
        let answer1 = try await client.post(APIPath.syncPush, StandinClient.pushEntry(sequence: 1), idempotencyKey: key).response().status
        XCTAssertEqual(answer1, 200)
        let other = try await client.post(APIPath.syncPush, StandinClient.pushEntry(sequence: 2), idempotencyKey: key).response()
        XCTAssertEqual(other.status, 422)
        XCTAssertEqual(other.errorCode, "INVALID_REQUEST")
        // Another path with the key is another request too.
        let grn = GRNConfirmRequest(poNumber: DemoData.openOrder, confirmedAt: "2026-11-20T09:14:03+01:00", lines: [GRNLine(lineNo: 1, received: 1)])
        let answer2 = try await client.post(APIPath.grnConfirm, grn, idempotencyKey: key).response().status
        XCTAssertEqual(answer2, 422)
        XCTAssertEqual(standin.backend.applications(ofKey: key), 1)
        XCTAssertEqual(standin.backend.pushes.count, 1)
    }

    func testTheKeyIsRequired() async throws {
        let push = try await client.post(APIPath.syncPush, StandinClient.pushEntry(sequence: 1)).response()
        XCTAssertEqual(push.status, 400)
        let grn = GRNConfirmRequest(poNumber: DemoData.openOrder, confirmedAt: "2026-11-20T09:14:03+01:00", lines: [GRNLine(lineNo: 1, received: 1)])
        let answer3 = try await client.post(APIPath.grnConfirm, grn).response().status
        XCTAssertEqual(answer3, 400)
        XCTAssertTrue(standin.applied.isEmpty)
    }

    func testARepeatedGRNIsReplayedByteForByte() async throws {
        let key = UUID().uuidString
        let grn = GRNConfirmRequest(poNumber: DemoData.openOrder, confirmedAt: "2026-11-20T09:14:03+01:00", lines: [GRNLine(lineNo: 1, received: 10)])
        let first = try await client.post(APIPath.grnConfirm, grn, idempotencyKey: key).response()
        let second = try await client.post(APIPath.grnConfirm, grn, idempotencyKey: key).response()
        XCTAssertEqual(first.status, 200)
        XCTAssertEqual(second.status, 200)
        XCTAssertEqual(second.body, first.body)
        XCTAssertEqual(second.header(SyncHeaderName.idempotentReplayed), "true")
        XCTAssertEqual(standin.backend.purchaseOrder(DemoData.openOrder)?.lines.first?.received, 10)
        XCTAssertEqual(standin.backend.applications(ofKey: key), 1)
    }

    func testConcurrentRepeatsApplyOnce() async throws {
        let key = UUID().uuidString
        let entry = StandinClient.pushEntry(sequence: 7)
        let client = self.client
        let statuses = try await withThrowingTaskGroup(of: SyncPushResponse.Status.self) { group in
            for _ in 0..<8 {
                group.addTask { try await client.post(APIPath.syncPush, entry, idempotencyKey: key).response().decode(SyncPushResponse.self).status }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(statuses.filter { $0 == .applied }.count, 1)
        XCTAssertEqual(statuses.filter { $0 == .duplicate }.count, 7)
        XCTAssertEqual(standin.backend.applications(ofKey: key), 1)
    }
}
