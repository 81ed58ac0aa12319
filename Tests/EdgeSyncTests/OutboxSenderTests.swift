import EdgeContract
import EdgeCore
import EdgeHTTP
import EdgeStandin
import EdgeStore
import EdgeSync
import Foundation
import Synchronization
import XCTest

/// SYN-7, row by row, over real HTTP to the stand-in on 127.0.0.1 through libcurl.
final class OutboxSenderTests: XCTestCase {
    func testSuccessDeletesTheEntryWithTheSYN6Headers() async throws {
        let h = try await SenderHarness(self)
        let entry = try h.enqueue("po/PO-2026-00042")
        let report = await h.sender().drain(manual: false)
        XCTAssertEqual(report.sent, 1)
        XCTAssertEqual(report.outcome, .idle)
        XCTAssertEqual(try h.pending(), [])
        XCTAssertNotNil(try h.outbox.status().lastPush)
        XCTAssertEqual(h.standin.backend.applications(ofKey: entry.idempotencyKey), 1)
        let request = try XCTUnwrap(h.pushes(key: entry.idempotencyKey).first)
        XCTAssertTrue(request.hasAuthorization)
        XCTAssertEqual(request.headers["x-device-id"], h.identity.deviceID)
        XCTAssertEqual(request.headers["x-app-version"], "0.3.0")
        XCTAssertEqual(request.headers["x-platform"], "LINUX")
        XCTAssertEqual(request.headers["x-os-version"], "Debian GNU/Linux 12 (bookworm)")
        XCTAssertEqual(request.headers["x-timezone"], "Europe/Berlin")
        XCTAssertEqual(request.headers["content-type"], "application/json")
        let pushed = try XCTUnwrap(h.standin.backend.pushes.first)
        XCTAssertEqual(pushed.sequence, entry.sequence)
        XCTAssertEqual(pushed.createdAt, entry.createdAt)
        XCTAssertEqual(pushed.payload, .object(["text": .string("PO-2026-00042")]))
    }

    func testAnswerLostAfterApplyIsResentUnderTheSameKeyAndAppliedOnce() async throws {
        let h = try await SenderHarness(self)
        let entry = try h.enqueue("po/1")
        h.standin.faults.add(.drop, pathPrefix: APIPath.syncPush, times: 1)
        // A long backoff keeps the retry out of the first drain; the manual run brings it forward.
        let sender = h.sender { $0.backoff = BackoffPolicy(base: 30, cap: 60) }
        let first = await sender.drain(manual: false)
        XCTAssertEqual(first.retried, 1)
        XCTAssertEqual(try h.pending().first?.attempts, 0, "a transport failure does not count against the entry")
        let second = await sender.drain(manual: true)
        XCTAssertEqual(second.sent, 1)
        XCTAssertEqual(second.duplicates, 1, "the server replayed its first answer")
        XCTAssertEqual(h.standin.backend.applications(ofKey: entry.idempotencyKey), 1)
        XCTAssertEqual(h.pushes(key: entry.idempotencyKey).count, 2)
        // A second answer on the same connection (a double reply) changes nothing either.
        let other = try h.enqueue("po/2")
        h.standin.faults.add(.double, pathPrefix: APIPath.syncPush, times: 1)
        let drained1 = await sender.drain(manual: false)

        XCTAssertEqual(drained1.sent, 1)
        XCTAssertEqual(h.standin.backend.applications(ofKey: other.idempotencyKey), 1)
        XCTAssertEqual(try h.pending(), [])
    }

    func testNetworkFailuresTimeoutsAnd5xxAreRetriedWithBackoff() async throws {
        let h = try await SenderHarness(self)
        let entry = try h.enqueue("po/1")
        let sender = h.sender { $0.backoff = BackoffPolicy(base: 30, cap: 60) }
        for (kind, parameters) in [(FaultKind.refuse, FaultParameters()), (.delay, FaultParameters(delayMS: 3_000)),
                                   (.status, FaultParameters(status: 503, code: "UNAVAILABLE")), (.status, FaultParameters(status: 408))] {
            h.standin.faults.add(kind, pathPrefix: APIPath.syncPush, times: 1, parameters: parameters)
            let before = Date().timeIntervalSince1970
            let report = await sender.drain(manual: true)
            XCTAssertEqual(report.retried, 1, "\(kind)")
            let waiting = try XCTUnwrap(try h.pending().first)
            XCTAssertEqual(waiting.idempotencyKey, entry.idempotencyKey)
            XCTAssertLessThanOrEqual(waiting.nextAttemptAt, before + 60 + 5, "\(kind): never beyond the cap")
            XCTAssertNotNil(waiting.lastError, "\(kind)")
        }
        let attempts = try XCTUnwrap(try h.pending().first?.attempts)
        XCTAssertEqual(attempts, 2, "503 and 408 count against the entry; refusal and timeout do not")
        // Each manual run starts counting afresh; the last one saw one failure.
        XCTAssertEqual(try h.state.sender().consecutiveFailures, 1)
        // Nothing was applied by any of them; the next manual run sends it.
        XCTAssertEqual(h.standin.backend.applications(ofKey: entry.idempotencyKey), 0)
        let drained2 = await sender.drain(manual: true)

        XCTAssertEqual(drained2.sent, 1)
        XCTAssertEqual(try h.state.sender().consecutiveFailures, 0)
    }

    func testRetryAfterIsHonouredForTheWholeStation() async throws {
        let h = try await SenderHarness(self)
        try h.enqueue("po/1")
        h.standin.faults.add(.status, pathPrefix: APIPath.syncPush, times: 1,
                             parameters: FaultParameters(status: 429, retryAfter: "120", code: "RATE_LIMITED"))
        let before = Date().timeIntervalSince1970
        let report = await h.sender().drain(manual: false)
        XCTAssertEqual(report.retried, 1)
        let waiting = try XCTUnwrap(try h.pending().first)
        XCTAssertGreaterThanOrEqual(waiting.nextAttemptAt, before + 119)
        XCTAssertEqual(waiting.lastError, "HTTP 429 RATE_LIMITED")
        // An HTTP date works the same way.
        h.standin.faults.add(.status, pathPrefix: APIPath.syncPush, times: 1,
                             parameters: FaultParameters(status: 503, retryAfter: httpDate(Date().addingTimeInterval(90))))
        _ = await h.sender().drain(manual: true)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(try h.pending().first).nextAttemptAt, before + 85)
    }

    func testFiveConsecutiveFailuresPauseUntilAManualRun() async throws {
        let h = try await SenderHarness(self)
        for index in 0..<5 { try h.enqueue("po/\(index)") }
        h.standin.faults.add(.status, pathPrefix: APIPath.syncPush, times: 5, parameters: FaultParameters(status: 500))
        let sender = h.sender()
        let report = await sender.drain(manual: false)
        guard case .paused(let reason) = report.outcome else { return XCTFail("expected a pause, got \(report.outcome)") }
        XCTAssertTrue(reason.hasPrefix("5 consecutive failures"), reason)
        let state = try h.state.sender()
        XCTAssertTrue(state.isPaused(now: Date().timeIntervalSince1970))
        XCTAssertEqual(try XCTUnwrap(state.pausedUntil), Date().timeIntervalSince1970 + 300, accuracy: 10)
        // Paused: an automatic drain sends nothing, even though entries are due.
        try await Task.sleep(nanoseconds: 100_000_000)
        let drained3 = await sender.drain(manual: false)

        XCTAssertEqual(drained3.sent, 0)
        // The operator's `edge sync run` resumes at once.
        let manual = await sender.drain(manual: true)
        XCTAssertEqual(manual.sent, 5)
        XCTAssertFalse(try h.state.sender().isPaused(now: Date().timeIntervalSince1970))
    }

    func testAPauseEndsByItselfAfterFiveMinutes() async throws {
        let h = try await SenderHarness(self)
        for index in 0..<5 { try h.enqueue("po/\(index)") }
        h.standin.faults.add(.status, pathPrefix: APIPath.syncPush, times: 5, parameters: FaultParameters(status: 502))
        // The sender's wall clock is the test's: five minutes pass without sleeping.
        let offset = Mutex<Double>(0)
        let sender = h.sender(wallClock: { Date().timeIntervalSince1970 + offset.withLock { $0 } })
        let paused = await sender.drain(manual: false)
        guard case .paused = paused.outcome else { return XCTFail("expected a pause, got \(paused.outcome)") }
        offset.withLock { $0 = 299 }
        let still = await sender.drain(manual: false)
        guard case .paused = still.outcome else { return XCTFail("still paused at 4:59, got \(still.outcome)") }
        offset.withLock { $0 = 301 }
        let resumed = await sender.drain(manual: false)
        XCTAssertEqual(resumed.sent, 5)
        XCTAssertEqual(resumed.outcome, .idle)
    }

    /// Issue #30 item 2: the wall clock stepped back ten minutes while the sender runs. Every
    /// wait keeps what remained of it (a backed-off entry, the pause) and an entry due before the
    /// step stays due, instead of each gaining ten minutes.
    func testAClockSteppedBackWhileSendingMovesEveryWaitWithIt() async throws {
        let h = try await SenderHarness(self)
        h.standin.faults.add(.status, pathPrefix: APIPath.syncPush, times: 1, parameters: FaultParameters(status: 503))
        let offset = Mutex<Double>(0)
        let sender = h.sender(configure: { $0.backoff = BackoffPolicy(base: 120, cap: 120); $0.pauseAfterFailures = 1 },
                              wallClock: { Date().timeIntervalSince1970 + offset.withLock { $0 } })
        try h.enqueue("po/backed-off")
        let failed = await sender.drain(manual: false)
        guard case .paused = failed.outcome else { return XCTFail("expected a pause, got \(failed.outcome)") }
        try h.enqueue("po/due")
        func entry(_ stream: String) throws -> OutboxEntry { try XCTUnwrap(try h.pending().first { $0.message.stream == stream }) }
        let backedOff = try entry("po/backed-off").nextAttemptAt
        let due = try entry("po/due").nextAttemptAt
        let pausedUntil = try XCTUnwrap(try h.state.sender().pausedUntil)

        offset.withLock { $0 = -600 }
        let stillPaused = await sender.drain(manual: false)
        guard case .paused = stillPaused.outcome else { return XCTFail("the pause keeps its five minutes, got \(stillPaused.outcome)") }
        XCTAssertEqual(try XCTUnwrap(try h.state.sender().pausedUntil), pausedUntil - 600, accuracy: 0.001)
        XCTAssertEqual(try entry("po/backed-off").nextAttemptAt, backedOff - 600, accuracy: 0.001)
        XCTAssertEqual(try entry("po/due").nextAttemptAt, due - 600, accuracy: 0.001)
        XCTAssertLessThanOrEqual(try entry("po/due").nextAttemptAt, Date().timeIntervalSince1970 - 600, "due before the step, due after it")
        // A step forward moves nothing (waits end early, which costs a retry, never an entry).
        offset.withLock { $0 = 3600 }
        let resumed = await sender.drain(manual: false)
        XCTAssertEqual(resumed.sent, 2)
    }

    func testTheRunningSenderResumesWhenTheNetworkChanges() async throws {
        let h = try await SenderHarness(self)
        for index in 0..<5 { try h.enqueue("po/\(index)") }
        h.standin.faults.add(.status, pathPrefix: APIPath.syncPush, times: 5, parameters: FaultParameters(status: 503))
        // The network as the monitor sees it; the test changes it.
        let network = Mutex(["eth0 192.0.2.10"])
        let monitor = ConnectivityMonitor(source: { network.withLock { $0 } })
        let sender = h.sender(configure: { $0.pollSeconds = 0.02 }, connectivity: monitor)
        let running = Task { await sender.run() }
        defer { running.cancel() }
        // Five failures: paused, with entries due and the server answering again.
        try await waitUntil { (try? h.state.sender().isPaused(now: Date().timeIntervalSince1970)) == true }
        try await Task.sleep(nanoseconds: 200_000_000)
        XCTAssertEqual(try h.pending().count, 5, "paused: nothing is sent")
        // The station moves to another network: the sender resumes without waiting 5 minutes.
        network.withLock { $0 = ["wlan0 198.51.100.7"] }
        try await waitUntil { (try? h.pending().isEmpty) == true }
        XCTAssertFalse(try h.state.sender().isPaused(now: Date().timeIntervalSince1970))
    }

    /// Polls `condition` for up to 10 s (a bound for a stuck test, not a timing assertion).
    private func waitUntil(_ condition: () -> Bool) async throws {
        for _ in 0..<500 {
            if condition() { return }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        XCTFail("condition not met within 10 s")
    }

    func testRevokedTokenHoldsItsEntriesAndOthersGoOn() async throws {
        let h = try await SenderHarness(self)
        let held = try h.enqueue("enrollment/enr-1", credential: "enrollment.enr-1")
        let station = try h.enqueue("po/1")
        _ = h.standin.backend.revoke(.token("enrollment-token"), code: .tokenRevoked)
        let sender = h.sender(tokens: ["station": SenderHarness.token, "enrollment.enr-1": "enrollment-token"])
        let report = await sender.drain(manual: false)
        XCTAssertEqual(report.held, 1)
        XCTAssertEqual(report.sent, 1)
        XCTAssertEqual(try h.state.holds().map(\.credential), ["enrollment.enr-1"])
        XCTAssertEqual(try h.state.holds().first?.reason, "HTTP 403 TOKEN_REVOKED")
        // Kept, not deleted, not sent again while held.
        XCTAssertEqual(try h.pending().map(\.id), [held.id])
        XCTAssertEqual(h.standin.backend.applications(ofKey: station.idempotencyKey), 1)
        let drained4 = await sender.drain(manual: true)

        XCTAssertEqual(drained4.sent, 0)
        XCTAssertEqual(h.pushes(key: held.idempotencyKey).count, 1)
    }

    /// AGT-6 with hold kinds (issue #28): a new token releases a credential hold, never a hold
    /// whose kind only its owner may end (a Study Start wait), even one with a fingerprint.
    func testANewTokenReleasesACredentialHoldButNotAHoldOnlyItsOwnerEnds() async throws {
        let h = try await SenderHarness(self)
        struct Fingerprinting: TokenProvider {
            let tokens: [String: String]
            func token(for credential: String?) async throws -> BearerToken? { tokens[credential ?? "station"].map(BearerToken.init) }
            // The token itself stands in for its keyed hash: only "changed or not" matters here.
            func fingerprint(for credential: String?) async throws -> String? { tokens[credential ?? "station"] }
        }
        let approval = HoldKind(name: "approval_test", waitingFor: "approval", isFault: false, operatorMayRelease: false)
        let station = try h.enqueue("po/1")
        let waiting = try h.enqueue("enrollment/enr-1", credential: "enrollment.enr-1")
        try h.state.hold(credential: Outbox.stationCredential, reason: "HTTP 401", tokenFingerprint: "rejected-token", now: 1)
        try h.state.hold(credential: "enrollment.enr-1", reason: "waiting", tokenFingerprint: "rejected-token", kind: approval, now: 1)

        var configuration = SenderConfiguration(baseURL: h.baseURL, identity: h.identity)
        configuration.requestsPerMinute = 100_000
        let sender = OutboxSender(outbox: h.outbox, transport: h.transport,
                                  tokens: Fingerprinting(tokens: ["station": SenderHarness.token, "enrollment.enr-1": "enrollment-token"]),
                                  configuration: configuration)
        let report = await sender.drain(manual: true)
        XCTAssertEqual(report.sent, 1)
        XCTAssertEqual(h.standin.backend.applications(ofKey: station.idempotencyKey), 1)
        XCTAssertEqual(try h.state.holds().map(\.credential), ["enrollment.enr-1"])
        XCTAssertEqual(try h.state.holds().first?.kind, approval)
        XCTAssertEqual(try h.pending().map(\.id), [waiting.id])
        XCTAssertTrue(h.pushes(key: waiting.idempotencyKey).isEmpty)
        // Nor does an operator's release end it; its owner's does.
        XCTAssertNil(try h.state.releaseIfOperatorMay(credential: "enrollment.enr-1"))
        XCTAssertTrue(try h.state.release(credential: "enrollment.enr-1"))
    }

    func testUnauthorizedWithARefreshRetriesWithTheNewToken() async throws {
        let h = try await SenderHarness(self)
        let entry = try h.enqueue("po/1")
        actor Refresher: CredentialRejectionHandler {
            var calls: [(String?, Int, String?)] = []
            func credentialRejected(_ credential: String?, status: Int, code: String?) async -> CredentialVerdict {
                calls.append((credential, status, code))
                return .refreshed
            }
        }
        let refresher = Refresher()
        // The first token is unknown to the server (401); the provider then hands out the good one.
        final class Rotating: TokenProvider, @unchecked Sendable {
            var calls = 0
            func token(for credential: String?) async throws -> BearerToken? {
                calls += 1
                return BearerToken(calls == 1 ? "stale-token" : SenderHarness.token)
            }
        }
        var configuration = SenderConfiguration(baseURL: h.baseURL, identity: h.identity)
        configuration.requestsPerMinute = 100_000
        let sender = OutboxSender(outbox: h.outbox, transport: h.transport, tokens: Rotating(), rejections: refresher, configuration: configuration)
        let first = await sender.drain(manual: false)
        XCTAssertEqual(first.sent, 1, "refreshed, then sent in the same drain")
        let calls = await refresher.calls
        XCTAssertEqual(calls.count, 1)
        XCTAssertEqual(calls.first?.1, 401)
        XCTAssertEqual(h.standin.backend.applications(ofKey: entry.idempotencyKey), 1)
        XCTAssertEqual(try h.state.holds(), [])
    }

    func testConflictGoesToTheLogAndTheServerWins() async throws {
        let h = try await SenderHarness(self)
        // PO-2026-00077 was received in full on the server (the stand-in's demo data).
        let grn = #"{"po_number":"PO-2026-00077","confirmed_at":"2026-11-22T09:00:00.000+01:00","lines":[{"line_no":1,"received":4}],"photos":[]}"#
        let entry = try h.enqueue("po/PO-2026-00077", kind: "grn.confirm", grn)
        let report = await h.sender().drain(manual: false)
        XCTAssertEqual(report.conflicts, 1)
        XCTAssertEqual(try h.pending(), [])
        let conflict = try XCTUnwrap(try h.outbox.conflicts().first)
        XCTAssertEqual(conflict.idempotencyKey, entry.idempotencyKey)
        XCTAssertEqual(conflict.payload, Array(grn.utf8), "the local version is kept")
        let details = try ContractCoding.decode(JSONValue.self, from: conflict.serverVersion)
        XCTAssertTrue(details["changes"]?.stringValue?.contains("PO-2026-00077 was already received") ?? false, "\(details)")
        XCTAssertNotNil(details["server_version"])
        XCTAssertEqual(h.standin.backend.purchaseOrder("PO-2026-00077")?.status.rawValue, "RECEIVED")
        // A 409 from the push path is handled the same way.
        let event = try h.enqueue("po/9")
        h.standin.faults.add(.status, pathPrefix: APIPath.syncPush, times: 1,
                             parameters: FaultParameters(status: 409, code: "CONFLICT", details: .object(["changes": .string("qty 3, not 4")])))
        let drained5 = await h.sender().drain(manual: false)

        XCTAssertEqual(drained5.conflicts, 1)
        XCTAssertEqual(try h.outbox.conflicts().last?.idempotencyKey, event.idempotencyKey)
    }

    func testUpgradeRequiredStopsSending() async throws {
        let h = try await SenderHarness(self)
        for index in 0..<3 { try h.enqueue("po/\(index)") }
        h.standin.faults.add(.status, pathPrefix: APIPath.syncPush, times: 1,
                             parameters: FaultParameters(status: 426, code: "UPGRADE_REQUIRED", message: "edge 1.0 or later is required"))
        let sender = h.sender { $0.concurrency = 1 }
        let report = await sender.drain(manual: false)
        XCTAssertEqual(report.outcome, .upgradeRequired(message: "edge 1.0 or later is required"))
        XCTAssertEqual(try h.pending().count, 3, "nothing is dropped")
        XCTAssertTrue(try h.state.sender().upgradeRequired(appVersion: "0.3.0"))
        // Even a manual run sends nothing as this version.
        let drained6 = await sender.drain(manual: true)

        XCTAssertEqual(drained6.sent, 0)
        // A newer version may try again.
        let newer = h.sender { $0.identity.appVersion = "1.0.0" }
        let drained7 = await newer.drain(manual: true)

        XCTAssertEqual(drained7.sent, 3)
    }

    func testOtherClientErrorsAreDeadLetteredAndCanBeRequeued() async throws {
        let h = try await SenderHarness(self)
        // A negative quantity: the stand-in answers 422 INVALID_REQUEST.
        let bad = #"{"po_number":"PO-2026-00042","confirmed_at":"2026-11-22T09:00:00.000+01:00","lines":[{"line_no":1,"received":-1}],"photos":[]}"#
        let entry = try h.enqueue("po/PO-2026-00042", kind: "grn.confirm", bad)
        let after = try h.enqueue("po/PO-2026-00042")
        let report = await h.sender().drain(manual: false)
        XCTAssertEqual(report.deadLettered, 1)
        XCTAssertEqual(report.sent, 1, "the stream goes on after its dead letter")
        let dead = try XCTUnwrap(try h.outbox.deadLetters().first)
        XCTAssertEqual(dead.idempotencyKey, entry.idempotencyKey)
        XCTAssertTrue(dead.reason.hasPrefix("HTTP 422 INVALID_REQUEST: Line 1: the received quantity must not be negative"), dead.reason)
        XCTAssertEqual(h.standin.backend.applications(ofKey: after.idempotencyKey), 1)
        // Re-queued by hand, it is sent again under its key (and refused again: the server
        // replays its first answer for the key).
        let requeued = try h.outbox.requeue(deadLetterID: dead.id)
        XCTAssertEqual(requeued.idempotencyKey, entry.idempotencyKey)
        let drained8 = await h.sender().drain(manual: true)

        XCTAssertEqual(drained8.deadLettered, 1)
    }

    func testMissingTokenWaitsWithoutCountingAFailure() async throws {
        let h = try await SenderHarness(self)
        let entry = try h.enqueue("enrollment/enr-9", credential: "enrollment.enr-9")
        let report = await h.sender(tokens: ["station": SenderHarness.token]).drain(manual: false)
        XCTAssertEqual(report.retried, 1)
        XCTAssertEqual(try h.pending().first?.lastError, "no token in the vault for credential enrollment.enr-9")
        XCTAssertEqual(try h.state.sender().consecutiveFailures, 0)
        XCTAssertEqual(h.pushes(key: entry.idempotencyKey), [])
    }

    func testStreamsAreFIFOAndIndependent() async throws {
        let h = try await SenderHarness(self)
        var keys: [String: [String]] = [:]
        for index in 0..<12 {
            let stream = "po/\(index % 3)"
            keys[stream, default: []].append(try h.enqueue(stream, #"{"n":\#(index)}"#).idempotencyKey)
        }
        // Stream po/1's head fails (a 503); the other streams are not held up by it.
        let blocked = try XCTUnwrap(keys["po/1"]?.first)
        h.standin.faults.add(.status, pathPrefix: APIPath.syncPush, times: 1, parameters: FaultParameters(status: 503))
        let sender = h.sender { $0.concurrency = 1; $0.backoff = BackoffPolicy(base: 30, cap: 60) }
        _ = await sender.drain(manual: false)
        let remaining = try h.pending()
        XCTAssertFalse(remaining.isEmpty)
        XCTAssertTrue(remaining.allSatisfy { $0.stream == remaining.first?.stream }, "only the failed stream waits")
        _ = await sender.drain(manual: true)
        XCTAssertEqual(try h.pending(), [])
        // The server saw each stream's entries in enqueue order.
        let order = h.standin.backend.pushes.map(\.sequence)
        for stream in ["po/0", "po/1", "po/2"] {
            let sequences = h.standin.backend.pushes.filter { $0.stream == stream }.map(\.sequence)
            XCTAssertEqual(sequences, sequences.sorted(), stream)
        }
        XCTAssertEqual(order.count, 12)
        _ = blocked
    }

    private func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
