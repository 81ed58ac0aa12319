import EdgeContract
import EdgeStandin
import Foundation
import XCTest

/// Every fault kind over real connections (SYN-11).
final class StandinFaultTests: StandinTestCase {
    private func push(_ key: String, sequence: Int64 = 1, timeout: Double = 10) async throws -> RawHTTPClient.Exchange {
        try await client.post(APIPath.syncPush, StandinClient.pushEntry(sequence: sequence), idempotencyKey: key, timeout: timeout)
    }

    func testRefuseClosesWithoutReadingOrApplying() async throws {
        standin.faults.add(.refuse, pathPrefix: APIPath.syncPush, times: 1)
        let key = UUID().uuidString
        let refused = try await push(key)
        XCTAssertTrue(refused.responses.isEmpty)
        XCTAssertTrue(refused.bytes.isEmpty)
        XCTAssertEqual(standin.backend.applications(ofKey: key), 0)
        XCTAssertEqual(standin.requests.last?.fault, .refuse)
        XCTAssertNil(standin.requests.last?.status)
        // The fault was used up: the retry goes through.
        let answer1 = try await push(key).response().decode(SyncPushResponse.self).status
        XCTAssertEqual(answer1, .applied)
    }

    func testDropAppliesThenClosesWithoutAnswer() async throws {
        standin.faults.add(.drop, pathPrefix: APIPath.syncPush, times: 1)
        let key = UUID().uuidString
        let dropped = try await push(key)
        XCTAssertTrue(dropped.responses.isEmpty, "answered \(dropped.responses.map(\.status))")
        XCTAssertEqual(standin.backend.applications(ofKey: key), 1, "drop applies before it closes")
        XCTAssertEqual(standin.requests.last?.fault, .drop)
        // The client cannot know; its retry is answered as a duplicate and not applied again.
        let retry = try await push(key).response()
        XCTAssertEqual(try retry.decode(SyncPushResponse.self).status, .duplicate)
        XCTAssertEqual(retry.header(SyncHeaderName.idempotentReplayed), "true")
        XCTAssertEqual(standin.backend.applications(ofKey: key), 1)
    }

    func testDropBeforeApplyReadsTheWholeRequestAndChangesNothing() async throws {
        standin.faults.add(.dropBeforeApply, pathPrefix: APIPath.syncPush, times: 1)
        let key = UUID().uuidString
        let dropped = try await push(key)
        XCTAssertTrue(dropped.responses.isEmpty)
        XCTAssertEqual(standin.backend.applications(ofKey: key), 0)
        let record = try XCTUnwrap(standin.requests.last)
        XCTAssertEqual(record.fault, .dropBeforeApply)
        XCTAssertEqual(record.bodySize, try ContractCoding.encode(StandinClient.pushEntry(sequence: 1)).count)
        XCTAssertEqual(record.idempotencyKey, key)
        let answer2 = try await push(key).response().decode(SyncPushResponse.self).status
        XCTAssertEqual(answer2, .applied)
    }

    func testStatusFaultsAnswerWithoutApplying() async throws {
        let serverVersion: JSONValue = .object(["status": .string("RECEIVED")])
        let cases: [(FaultParameters, Int, String, String?)] = [
            (FaultParameters(), 503, "UNAVAILABLE", nil),
            (FaultParameters(status: 503, retryAfter: "2"), 503, "UNAVAILABLE", "2"),
            (FaultParameters(status: 429, retryAfter: "Fri, 20 Nov 2026 08:15:00 GMT"), 429, "RATE_LIMITED", "Fri, 20 Nov 2026 08:15:00 GMT"),
            (FaultParameters(status: 500), 500, "SERVER_ERROR", nil),
            (FaultParameters(status: 426), 426, "UPGRADE_REQUIRED", nil),
            (FaultParameters(status: 401), 401, "UNAUTHORIZED", nil),
            (FaultParameters(status: 403), 403, "TOKEN_REVOKED", nil),
            (FaultParameters(status: 403, code: "PATIENT_DISCONNECTED"), 403, "PATIENT_DISCONNECTED", nil),
            (FaultParameters(status: 409, details: .object(["server_version": serverVersion, "changes": .string("Received on the server.")])), 409, "CONFLICT", nil),
        ]
        for (parameters, status, code, retryAfter) in cases {
            standin.faults.add(.status, pathPrefix: APIPath.syncPush, times: 1, parameters: parameters)
            let key = UUID().uuidString
            let answer = try await push(key).response()
            XCTAssertEqual(answer.status, status)
            XCTAssertEqual(answer.errorCode, code)
            XCTAssertEqual(answer.header(SyncHeaderName.retryAfter), retryAfter)
            XCTAssertEqual(answer.header("X-Edge-Standin"), "true")
            if status == 409 {
                XCTAssertEqual(answer.json?["error"]?["details"]?["server_version"], serverVersion)
            }
            XCTAssertEqual(standin.backend.applications(ofKey: key), 0, "\(status)")
            XCTAssertEqual(standin.requests.last?.status, status)
        }
        XCTAssertTrue(standin.backend.pushes.isEmpty)
    }

    func testDoubleAppliesOnceAndAnswersTwice() async throws {
        standin.faults.add(.double, times: 1)
        let key = UUID().uuidString
        let exchange = try await push(key)
        XCTAssertEqual(exchange.responses.count, 2)
        XCTAssertEqual(exchange.responses.map(\.status), [200, 200])
        XCTAssertEqual(exchange.responses.first?.body, exchange.responses.last?.body)
        XCTAssertEqual(standin.backend.applications(ofKey: key), 1)
    }

    func testDelayHoldsTheRequestThenAnswers() async throws {
        standin.faults.add(.delay, times: 1, parameters: FaultParameters(delayMS: 300))
        let started = Date()
        let answer = try await push(UUID().uuidString).response()
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.3)
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(standin.requests.last?.fault, .delay)
    }

    func testAClientThatGivesUpDuringADelayIsNeverApplied() async throws {
        standin.faults.add(.delay, times: 1, parameters: FaultParameters(delayMS: 400))
        let key = UUID().uuidString
        let gaveUp = try await push(key, timeout: 0.1)
        XCTAssertTrue(gaveUp.timedOut)
        try await Task.sleep(for: .milliseconds(700))
        XCTAssertEqual(standin.backend.applications(ofKey: key), 0)
    }

    /// Issue #30 item 4: a backend that never answers. The request is read, never applied, never
    /// answered, and the connection stays open until the client gives up.
    func testStallNeverAnswersNorAppliesUntilTheClientGivesUp() async throws {
        standin.faults.add(.stall, pathPrefix: APIPath.syncPush, times: 1)
        let key = UUID().uuidString
        let stalled = try await push(key, timeout: 0.5)
        XCTAssertTrue(stalled.timedOut)
        XCTAssertTrue(stalled.bytes.isEmpty)
        XCTAssertEqual(standin.backend.applications(ofKey: key), 0)
        let record = try XCTUnwrap(standin.requests.last)
        XCTAssertEqual(record.fault, .stall)
        XCTAssertNil(record.status)
        try await eventuallyTrue("the stand-in saw the client give up") { self.standin.requests.last?.abandoned == true }
        // Used up: the retry is applied.
        let retried = try await push(key).response().decode(SyncPushResponse.self).status
        XCTAssertEqual(retried, .applied)
    }

    /// Issue #30 item 4: a backend that answers a byte at a time: applied, then the whole answer,
    /// slowly; a client that gives up half way has the head and part of the body.
    func testTrickleAppliesAndAnswersAByteAtATime() async throws {
        standin.faults.add(.trickle, pathPrefix: APIPath.syncPush, times: 1, parameters: FaultParameters(intervalMS: 5))
        let key = UUID().uuidString
        let exchange = try await push(key)
        let slow = try exchange.response().decode(SyncPushResponse.self).status
        XCTAssertEqual(slow, .applied)
        XCTAssertEqual(standin.requests.last?.fault, .trickle)
        XCTAssertEqual(standin.requests.last?.status, 200)
        XCTAssertNil(standin.requests.last?.abandoned)

        standin.faults.add(.trickle, pathPrefix: APIPath.syncPush, times: 1, parameters: FaultParameters(intervalMS: 1000))
        let other = UUID().uuidString
        let gaveUp = try await push(other, timeout: 0.3)
        XCTAssertTrue(gaveUp.timedOut)
        XCTAssertTrue(String(decoding: gaveUp.bytes, as: UTF8.self).hasPrefix("HTTP/1.1 200"), String(decoding: gaveUp.bytes, as: UTF8.self))
        XCTAssertTrue(gaveUp.responses.isEmpty, "the body is incomplete")
        XCTAssertEqual(standin.backend.applications(ofKey: other), 1)
        try await eventuallyTrue("the stand-in saw the client give up") { self.standin.requests.last?.abandoned == true }
        // Its retry is answered as the duplicate it is.
        let again = try await push(other).response().decode(SyncPushResponse.self).status
        XCTAssertEqual(again, .duplicate)
        XCTAssertEqual(standin.backend.applications(ofKey: other), 1)
    }

    /// Random mode leaves the faults that only end at a timeout out unless asked for.
    func testRandomModeDefaultsLeaveStallAndTrickleOut() throws {
        XCTAssertFalse(RandomFaults(seed: 1, probability: 1).kinds.contains(.stall))
        let decoded = try JSONDecoder().decode(RandomFaults.self, from: Data(#"{"seed": 1, "probability": 1}"#.utf8))
        XCTAssertEqual(decoded.kinds, FaultKind.randomDefaults)
        XCTAssertFalse(decoded.kinds.contains(.trickle))
    }

    private func eventuallyTrue(_ what: String, _ condition: @escaping () -> Bool) async throws {
        for _ in 0..<500 {
            if condition() { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        XCTFail("timed out waiting for: \(what)")
    }

    func testTimesAndPathPrefixLimitAFault() async throws {
        standin.faults.add(.status, pathPrefix: APIPath.syncPush, times: 2, parameters: FaultParameters(status: 503))
        // Another path is not hit.
        let answer3 = try await client.post(APIPath.scanBarcode, ScanLookupRequest(value: DemoData.openOrder)).response().status
        XCTAssertEqual(answer3, 200)
        let statuses = try await (1...3).asyncMap { _ in try await self.push(UUID().uuidString).response().status }
        XCTAssertEqual(statuses, [503, 503, 200])
        XCTAssertEqual(standin.faults.plan.faults, [])
    }

    func testAFaultForEverStaysUntilCleared() async throws {
        standin.faults.add(.status, parameters: FaultParameters(status: 500))
        for _ in 0..<3 {
            let answer4 = try await push(UUID().uuidString).response().status
            XCTAssertEqual(answer4, 500)
        }
        standin.faults.clear()
        let answer5 = try await push(UUID().uuidString).response().status
        XCTAssertEqual(answer5, 200)
    }

    func testFaultsNeverTouchTheControlAPI() async throws {
        standin.faults.add(.refuse)
        let control = try await client.get(StandinControlPath.faults).response()
        XCTAssertEqual(control.status, 200)
        let answer6 = try await push(UUID().uuidString).responses.isEmpty
        XCTAssertTrue(answer6)
    }

    func testRandomModeIsDeterministicForASeed() async throws {
        let kinds: [FaultKind] = [.refuse, .drop, .dropBeforeApply, .status, .double, .delay]
        let random = RandomFaults(seed: 42, probability: 0.5, kinds: kinds, parameters: FaultParameters(status: 503, delayMS: 10))
        let first = try await faultSequence(random, requests: 24)
        let again = try await faultSequence(random, requests: 24)
        XCTAssertEqual(first, again)
        XCTAssertGreaterThan(first.compactMap { $0 }.count, 4, "probability 0.5 hit too few: \(first)")
        XCTAssertLessThan(first.compactMap { $0 }.count, 20, "probability 0.5 hit too many: \(first)")
        let pushedBefore = standin.backend.pushes.count
        let other = try await faultSequence(RandomFaults(seed: 7, probability: 0.5, kinds: kinds, parameters: random.parameters), requests: 24)
        XCTAssertNotEqual(first, other)
        // Applied exactly when the fault lets the request through to the application.
        let reached: Set<FaultKind?> = [nil, .drop, .double, .delay]
        XCTAssertEqual(standin.backend.pushes.count - pushedBefore, other.filter { reached.contains($0) }.count)
    }

    /// The faults random mode picks for `requests` pushes, starting from the seed.
    private func faultSequence(_ random: RandomFaults, requests: Int) async throws -> [FaultKind?] {
        standin.backend.journal.clear()
        standin.faults.setRandom(random)
        for sequence in 0..<requests {
            _ = try await push(UUID().uuidString, sequence: Int64(sequence))
        }
        standin.faults.setRandom(nil)
        return standin.requests.map(\.fault)
    }
}

extension Sequence {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
