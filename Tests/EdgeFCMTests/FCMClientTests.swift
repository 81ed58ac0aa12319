import EdgeFCM
import EdgePush
import EdgeStandin
import Foundation
import XCTest

/// PSH-9 against the stand-in over real HTTP: every error code's handling.
final class FCMClientTests: XCTestCase {
    var directory: URL?
    override func tearDown() { directory.map { try? FileManager.default.removeItem(at: $0) } }

    func message(token: String = "device-token-1") throws -> FCMMessage {
        let (store, directory) = try makePushStore()
        self.directory = directory
        let now = FCMMessageBuilderTests.noon
        let record = try store.accept(try PushNotification(userID: "user-1", type: .kpiAlert, priority: .urgent, title: "KPI",
                                                           body: "Spend over budget", ttlSeconds: 3600, createdAt: now), now: now).record
        return try FCMMessageBuilder.message(for: record, token: token, badge: 2, now: now)
    }

    func testSendSucceedsAndStandinRecordsTheMessage() async throws {
        let harness = try await FCMHarness(self)
        let outcome = await harness.client().send(try message(), projectID: FCMHarness.projectID)
        guard case .sent(let name) = outcome else { return XCTFail("\(outcome)") }
        XCTAssertTrue(name.hasPrefix("projects/prokure-test/messages/"))
        let received = harness.standin.backend.fcm.received
        XCTAssertEqual(received.count, 1)
        XCTAssertEqual(received.first?.status, 200)
        XCTAssertEqual(received.first?.message?["token"]?.stringValue, "device-token-1")
    }

    func testPruneCodes() async throws {
        let harness = try await FCMHarness(self)
        let client = harness.client()
        let fcm = harness.standin.backend.fcm
        fcm.add(FCMFault(.unregistered, token: "dead"))
        fcm.add(FCMFault(.senderIDMismatch))
        fcm.add(FCMFault(.invalidToken))
        let first = await client.send(try message(token: "dead"), projectID: FCMHarness.projectID)
        XCTAssertEqual(first, .pruneToken(reason: "UNREGISTERED"))
        let second = await client.send(try message(), projectID: FCMHarness.projectID)
        XCTAssertEqual(second, .pruneToken(reason: "SENDER_ID_MISMATCH"))
        let third = await client.send(try message(), projectID: FCMHarness.projectID)
        XCTAssertEqual(third, .pruneToken(reason: "INVALID_ARGUMENT"))
    }

    func testInvalidPayloadFailsTheMessageAndKeepsTheToken() async throws {
        let harness = try await FCMHarness(self)
        harness.standin.backend.fcm.add(FCMFault(.invalidPayload))
        let outcome = await harness.client().send(try message(), projectID: FCMHarness.projectID)
        XCTAssertEqual(outcome, .failed(reason: "INVALID_ARGUMENT"))
    }

    func testQuotaExceededPausesTheWholeProject() async throws {
        let harness = try await FCMHarness(self)
        let client = harness.client()
        harness.standin.backend.fcm.add(FCMFault(.quotaExceeded(retryAfter: "120")))
        let outcome = await client.send(try message(), projectID: FCMHarness.projectID)
        XCTAssertEqual(outcome, .retry(after: 120, reason: "QUOTA_EXCEEDED"))
        let paused = client.pause(for: FCMHarness.projectID)
        XCTAssertNotNil(paused)
        // Another message to another token is not sent while the project is paused.
        let before = harness.standin.backend.fcm.received.count
        let second = await client.send(try message(token: "other"), projectID: FCMHarness.projectID)
        guard case .retry(let wait, "QUOTA_EXCEEDED") = second else { return XCTFail("\(second)") }
        XCTAssertGreaterThan(wait, 100)
        XCTAssertEqual(harness.standin.backend.fcm.received.count, before)
        harness.clock.advance(121)
        let third = await client.send(try message(token: "other"), projectID: FCMHarness.projectID)
        guard case .sent = third else { return XCTFail("\(third)") }
    }

    func testQuotaWithoutRetryAfterWaitsSixtySeconds() async throws {
        let harness = try await FCMHarness(self)
        harness.standin.backend.fcm.add(FCMFault(.quotaExceeded(retryAfter: nil)))
        let outcome = await harness.client().send(try message(), projectID: FCMHarness.projectID)
        XCTAssertEqual(outcome, .retry(after: 60, reason: "QUOTA_EXCEEDED"))
    }

    func testServerErrorsBackOffAtLeastTenSeconds() async throws {
        let harness = try await FCMHarness(self)
        let client = harness.client()
        let fcm = harness.standin.backend.fcm
        fcm.add(FCMFault(.serverError(status: 500)))
        fcm.add(FCMFault(.serverError(status: 503)))
        let first = await client.send(try message(), projectID: FCMHarness.projectID)
        guard case .retry(let wait0, "INTERNAL") = first else { return XCTFail("\(first)") }
        XCTAssertGreaterThanOrEqual(wait0, 10)
        let second = await client.send(try message(), projectID: FCMHarness.projectID, failures: 3)
        guard case .retry(let wait3, "UNAVAILABLE") = second else { return XCTFail("\(second)") }
        XCTAssertGreaterThan(wait3, wait0, "exponential")
        for failures in 0..<10 {
            let delay = client.retryDelay(failures: failures)
            XCTAssertGreaterThanOrEqual(delay, 10)
        }
    }

    func testBadGatewayHTMLIsTransient() async throws {
        let harness = try await FCMHarness(self)
        harness.standin.backend.fcm.add(FCMFault(.badGatewayHTML))
        let outcome = await harness.client().send(try message(), projectID: FCMHarness.projectID)
        guard case .retry(let wait, "HTTP_502") = outcome else { return XCTFail("\(outcome)") }
        XCTAssertGreaterThanOrEqual(wait, 10)
    }

    func testOneRefreshAndRetryOn401() async throws {
        let harness = try await FCMHarness(self)
        let tokens = harness.tokenSource()
        let client = harness.client(tokens: tokens)
        let first = await client.send(try message(), projectID: FCMHarness.projectID)
        guard case .sent = first else { return XCTFail("\(first)") }
        harness.standin.backend.fcm.revokeTokens()
        let second = await client.send(try message(), projectID: FCMHarness.projectID)
        guard case .sent = second else { return XCTFail("\(second)") }
        let exchanges = await tokens.exchanges
        XCTAssertEqual(exchanges, 2)
        // A 401 that a fresh token does not cure is retried later, not looped on.
        harness.standin.backend.fcm.add(FCMFault(.unauthenticated, times: 2))
        let third = await client.send(try message(), projectID: FCMHarness.projectID)
        guard case .retry(_, "UNAUTHENTICATED") = third else { return XCTFail("\(third)") }
        let afterThird = await tokens.exchanges
        XCTAssertEqual(afterThird, 3)
    }

    func testStandinRefusesMalformedMessages() throws {
        // Two targets, non-string data, long collapse id: validated by the stand-in like FCM.
        XCTAssertEqual(FCMStandin.violation(body: Array(#"{"message":{"token":"a","topic":"b"}}"#.utf8)), "message")
        XCTAssertEqual(FCMStandin.violation(body: Array(#"{"message":{"token":"a","data":{"n":1}}}"#.utf8)), "message.data[n]")
        let long = String(repeating: "c", count: 65)
        XCTAssertEqual(FCMStandin.violation(body: Array(#"{"message":{"token":"a","apns":{"headers":{"apns-collapse-id":"\#(long)"}}}}"#.utf8)),
                       "message.apns.headers[apns-collapse-id]")
        XCTAssertNil(FCMStandin.violation(body: Array(String(decoding: try message().body, as: UTF8.self).utf8)))
    }
}
