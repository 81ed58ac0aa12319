import EdgeFCM
import EdgeFCMTransport
import EdgePush
import EdgeStandin
import Foundation
import Synchronization
import XCTest

/// The push store's queue sent through the FCM client to the FCM stand-in over real HTTP:
/// records end SENT or FAILED with the reason, dead tokens are retired, transient errors wait.
final class PushSenderTests: XCTestCase {
    var directory: URL?
    override func tearDown() { directory.map { try? FileManager.default.removeItem(at: $0) } }

    private func setUp(_ harness: FCMHarness, devices: [String]) throws -> PushStore {
        let (store, directory) = try makePushStore()
        self.directory = directory
        let now = Int64(harness.clock.now)
        for token in devices { _ = try store.registerDevice(userID: "user-1", token: token, platform: .android, now: now) }
        return store
    }

    private func urgent(_ store: PushStore, _ harness: FCMHarness, title: String = "Approval needed") throws -> NotificationRecord {
        let now = Int64(harness.clock.now)
        return try store.accept(try PushNotification(userID: "user-1", type: .approvalPending, priority: .urgent, title: title,
                                                     body: "PO-2026-00042 waits for you", ttlSeconds: 7200, createdAt: now), now: now).record
    }

    func testQueuedNotificationGoesToEveryDeviceWithTheBadge() async throws {
        let harness = try await FCMHarness(self)
        let store = try setUp(harness, devices: ["phone", "tablet"])
        let record = try urgent(store, harness)
        let clock = harness.clock
        let sender = PushSender(store: store, client: harness.client(), projectID: FCMHarness.projectID, clock: { clock.now })
        let report = try await sender.sendDue()
        XCTAssertEqual(report.sent, 1)
        XCTAssertEqual(try store.notification(id: record.id).status, .sent)
        let received = harness.standin.backend.fcm.received
        XCTAssertEqual(Set(received.compactMap { $0.message?["token"]?.stringValue }), ["phone", "tablet"])
        let badge = received.first?.message?["apns"]?["payload"]?["aps"]?["badge"]
        XCTAssertEqual(badge, .integer(Int64(try store.badge(for: "user-1"))))
        // Nothing more to send.
        let again = try await sender.sendDue()
        XCTAssertEqual(again, PushSendReport())
    }

    func testDeadTokenIsRetiredAndTheOtherDeviceStillGetsIt() async throws {
        let harness = try await FCMHarness(self)
        let store = try setUp(harness, devices: ["dead-phone", "phone"])
        harness.standin.backend.fcm.add(FCMFault(.unregistered, token: "dead-phone"))
        let record = try urgent(store, harness)
        let clock = harness.clock
        let report = try await PushSender(store: store, client: harness.client(), projectID: FCMHarness.projectID, clock: { clock.now }).sendDue()
        XCTAssertEqual(report.prunedTokens, 1)
        XCTAssertEqual(report.sent, 1)
        XCTAssertEqual(try store.activeDevices(for: "user-1").map(\.token), ["phone"])
        XCTAssertEqual(try store.notification(id: record.id).status, .sent)
    }

    func testPayloadRejectedOnEveryDeviceFailsTheRecordWithTheReason() async throws {
        let harness = try await FCMHarness(self)
        let store = try setUp(harness, devices: ["phone"])
        harness.standin.backend.fcm.add(FCMFault(.invalidPayload))
        let record = try urgent(store, harness)
        let clock = harness.clock
        let report = try await PushSender(store: store, client: harness.client(), projectID: FCMHarness.projectID, clock: { clock.now }).sendDue()
        XCTAssertEqual(report.failed, 1)
        let after = try store.notification(id: record.id)
        XCTAssertEqual(after.status, .failed)
        XCTAssertNotNil(after.reason)
        XCTAssertEqual(try store.activeDevices(for: "user-1").count, 1, "a payload error keeps the token")
    }

    func testServerErrorWaitsThenSendsAndGivesUpAfterAnHour() async throws {
        let harness = try await FCMHarness(self)
        let store = try setUp(harness, devices: ["phone"])
        harness.standin.backend.fcm.add(FCMFault(.serverError(status: 503), times: 1))
        let record = try urgent(store, harness)
        let clock = harness.clock
        let sender = PushSender(store: store, client: harness.client(), projectID: FCMHarness.projectID, clock: { clock.now })
        var report = try await sender.sendDue()
        XCTAssertEqual(report.deferred, 1)
        XCTAssertEqual(try store.notification(id: record.id).status, .queued)
        // Not before its retry time (the first retry waits at least 10 s, PSH-9).
        report = try await sender.sendDue()
        XCTAssertEqual(report.deferred, 1)
        XCTAssertEqual(harness.standin.backend.fcm.received.count, 1)
        clock.advance(700)
        report = try await sender.sendDue()
        XCTAssertEqual(report.sent, 1)

        // Another one that never gets through: FAILED after 60 minutes, not retried for ever.
        harness.standin.backend.fcm.add(FCMFault(.serverError(status: 500), times: nil))
        let stuck = try urgent(store, harness, title: "Stuck")
        _ = try await sender.sendDue()
        clock.advance(3601)
        report = try await sender.sendDue()
        XCTAssertEqual(report.failed, 1)
        XCTAssertEqual(try store.notification(id: stuck.id).status, .failed)
    }

    func testNoActiveDeviceFailsAtOnce() async throws {
        let harness = try await FCMHarness(self)
        let store = try setUp(harness, devices: [])
        let record = try urgent(store, harness)
        let clock = harness.clock
        let report = try await PushSender(store: store, client: harness.client(), projectID: FCMHarness.projectID, clock: { clock.now }).sendDue()
        XCTAssertEqual(report.failed, 1)
        XCTAssertEqual(try store.notification(id: record.id).reason, "no active device")
    }

    func testManyUsersInOnePassAreSentConcurrentlyAndRecordedOnce() async throws {
        let harness = try await FCMHarness(self)
        let (store, directory) = try makePushStore()
        self.directory = directory
        let now = Int64(harness.clock.now)
        for user in 0..<60 { _ = try store.registerDevice(userID: "u\(user)", token: "tok-\(user)", platform: .android, now: now) }
        let accepted = try store.accept(try (0..<240).map { i in
            try PushNotification(userID: "u\(i % 60)", type: .deliveryUpdate, priority: .urgent, title: "Delivery \(i)", body: "Dock 1",
                                 ttlSeconds: 3600, createdAt: now)
        }, now: now)
        let clock = harness.clock
        // 240 messages to 60 devices: 4 each, inside the 240/min per-device limit.
        let sender = PushSender(store: store, client: harness.client(), projectID: FCMHarness.projectID, maxInFlight: 32, clock: { clock.now })
        let report = try await sender.sendDue(limit: 1000)
        XCTAssertEqual(report.sent, 240)
        XCTAssertEqual(Set(report.sentNotifications), Set(accepted.map(\.record.id)))
        XCTAssertEqual(try store.statusCounts()[.sent], 240)
        let titles = harness.standin.backend.fcm.received.compactMap { $0.message?["notification"]?["title"]?.stringValue }
        XCTAssertEqual(titles.count, 240)
        XCTAssertEqual(Set(titles).count, 240, "each message sent exactly once")
        let again = try await sender.sendDue()
        XCTAssertEqual(again, PushSendReport())
    }

    func testHeldDuringQuietHoursThenOneDigestWithTheBadgeThenTheInboxResetsIt() async throws {
        let harness = try await FCMHarness(self)
        let store = try setUp(harness, devices: ["phone"])
        // The relay's own clock moves through the night; the OAuth client keeps real time, by
        // which the stand-in judges its JWTs.
        let clock = TestClock()
        // Quiet hours around the present, in UTC (the store's station zone).
        let hour = Int((Int64(clock.now) % 86_400) / 3600)
        try store.savePreferences(try PushPreferences(userID: "user-1", quietHours: QuietHours(
            start: TimeOfDay(hour: (hour + 23) % 24), end: TimeOfDay(hour: (hour + 1) % 24))), now: Int64(clock.now))
        let now = Int64(clock.now)
        for n in 1...3 {
            let held = try store.accept(try PushNotification(userID: "user-1", type: .assignmentCreated, priority: n == 1 ? .high : .normal,
                                                             title: "PO-2026-0004\(n) assigned", body: "Dock \(n)", ttlSeconds: 86_400, createdAt: now), now: now)
            guard case .hold = held.decision else { return XCTFail("not held: \(held.decision)") }
        }
        let sender = PushSender(store: store, client: harness.client(), projectID: FCMHarness.projectID, clock: { clock.now })
        let relay = PushRelay(store: store, sender: sender, clock: { clock.now })
        _ = try await relay.pass()
        XCTAssertEqual(harness.standin.backend.fcm.received.count, 0, "nothing goes out during quiet hours (PSH-4)")

        // The window ends: one digest, spread within 5 minutes, with the absolute badge (PSH-5).
        let windowEnd = try XCTUnwrap(try store.overview().nextRelease)
        clock.advance(Double(windowEnd - Int64(clock.now)) + 1)
        _ = try await relay.pass()
        clock.advance(Double(PushStore.defaultReleaseSpreadSeconds) + 1)
        let report = try await relay.pass()
        XCTAssertEqual(report.sent, 1)
        let digest = try XCTUnwrap(harness.standin.backend.fcm.received.last?.message)
        XCTAssertEqual(digest["notification"]?["title"]?.stringValue, "3 new assignments - 1 urgent")
        XCTAssertEqual(digest["apns"]?["payload"]?["aps"]?["badge"], .integer(3))
        XCTAssertEqual(digest["android"]?["notification"]?["notification_count"], .integer(3))
        let tag = try XCTUnwrap(digest["android"]?["notification"]?["tag"]?.stringValue)
        XCTAssertEqual(digest["apns"]?["headers"]?["apns-collapse-id"]?.stringValue, tag, "one stable tag (PSH-6)")
        XCTAssertEqual(try store.notifications(userID: "user-1", status: .sent).count, 3)

        // The user opens the inbox: the next push counts from 0.
        try store.inboxOpened(userID: "user-1", now: Int64(clock.now))
        let now2 = Int64(clock.now)
        _ = try store.accept(try PushNotification(userID: "user-1", type: .approvalPending, priority: .urgent, title: "Approval needed",
                                                  body: "PO-2026-00042", ttlSeconds: 7200, createdAt: now2), now: now2)
        _ = try await relay.pass()
        XCTAssertEqual(harness.standin.backend.fcm.received.last?.message?["apns"]?["payload"]?["aps"]?["badge"], .integer(1))
    }

    func testRelayWakesForNewWorkAndStopsWhenCancelled() async throws {
        let harness = try await FCMHarness(self)
        let store = try setUp(harness, devices: ["phone"])
        let clock = harness.clock
        let sender = PushSender(store: store, client: harness.client(), projectID: FCMHarness.projectID, clock: { clock.now })
        // A long poll: only wake() can explain a prompt send.
        let relay = PushRelay(store: store, sender: sender, pollSeconds: 3600, clock: { clock.now })
        let task = Task { await relay.run() }
        try await Task.sleep(for: .milliseconds(100))
        let record = try urgent(store, harness)
        relay.wake()
        var status = NotificationStatus.queued
        for _ in 0..<200 where status != .sent {
            try await Task.sleep(for: .milliseconds(25))
            status = try store.notification(id: record.id).status
        }
        XCTAssertEqual(status, .sent)
        task.cancel()
        await task.value
    }
}

/// The sending pipeline (PSH-10, PSH-11): sends stay open across batches, outcomes are recorded
/// in chunks, deferred sends come back within the same run, a restart resends only what was not
/// recorded.
final class PushPipelineTests: XCTestCase {
    private func store(users: Int, notifications: Int, _ harness: FCMHarness) throws -> (PushStore, [Int64]) {
        let (store, directory) = try makePushStore()
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        let now = Int64(harness.clock.now)
        for user in 0..<users { _ = try store.registerDevice(userID: "u\(user)", token: "tok-\(user)", platform: .android, now: now) }
        let accepted = try accept(store, count: notifications, users: users, from: 0, now: now)
        return (store, accepted)
    }

    private func accept(_ store: PushStore, count: Int, users: Int, from first: Int, now: Int64) throws -> [Int64] {
        try store.accept(try (first ..< first + count).map { i in
            try PushNotification(userID: "u\(i % users)", type: .deliveryUpdate, priority: .urgent, title: "Delivery \(i)", body: "Dock 2",
                                 ttlSeconds: 3600, createdAt: now)
        }, now: now).map(\.record.id)
    }

    private func ids(_ messages: [FCMReceivedMessage]) -> [Int64] {
        messages.compactMap { $0.message?["data"]?["notification_id"]?.stringValue.flatMap { Int64($0) } }
    }

    func testSendsStayOpenAcrossBatchesWithinTheCapAndLateWorkJoinsTheSameRun() async throws {
        let harness = try await FCMHarness(self, tls: true)
        let (store, accepted) = try store(users: 100, notifications: 300, harness)
        harness.standin.backend.fcm.add(FCMFault(.slow(seconds: 0.05), times: nil))
        let counting = CountingTransport(harness.transport)
        let clock = harness.clock
        let sender = PushSender(store: store, client: harness.client(transport: counting), projectID: FCMHarness.projectID, maxInFlight: 60,
                                clock: { clock.now })
        let chunks = Mutex<[PushSendReport]>([])
        let run = Task { try await sender.sendAllDue(batch: 25) { report in chunks.withLock { $0.append(report) } } }
        // Queued while the run is under way (300 answers at 60 at a time take >= 0.25 s).
        try await Task.sleep(for: .milliseconds(100))
        let late = try accept(store, count: 30, users: 100, from: 300, now: Int64(clock.now))
        var report = try await run.value
        // A send whose connection broke under it (TRANSPORT_*) is retried after 0.5-2 s
        // (FCMClient.reconnectDelay): let any such retries come due.
        while let next = await sender.nextRetry {
            clock.advance(max(0, next - clock.now) + 0.01)
            report.add(try await sender.sendAllDue(batch: 25) { report in chunks.withLock { $0.append(report) } })
        }

        XCTAssertEqual(report.sent, 330, "what was queued during the run went out in it")
        XCTAssertEqual(Set(report.sentNotifications), Set(accepted + late))
        XCTAssertEqual(try store.statusCounts()[.sent], 330)
        let received = ids(harness.standin.backend.fcm.received)
        XCTAssertEqual(Set(received).count, 330)
        // The relay sent each once (plus its own retries, if a connection broke)...
        let retried = report.deferredReasons.filter { $0.key.hasPrefix("TRANSPORT_") }.values.reduce(0, +)
        XCTAssertEqual(counting.total, 330 + retried, "\(report.deferredReasons)")
        // ... and should any copy reach the stand-in twice, every copy carries the notification's
        // collapse key, so the phone replaces rather than stacks (PSH-6).
        var keys: [Int64: Set<String>] = [:]
        for message in harness.standin.backend.fcm.received {
            guard let id = ids([message]).first else { continue }
            keys[id, default: []].insert(message.message?["android"]?["collapse_key"]?.stringValue ?? "")
            keys[id, default: []].insert(message.message?["apns"]?["headers"]?["apns-collapse-id"]?.stringValue ?? "")
        }
        XCTAssertTrue(keys.values.allSatisfy { $0.count == 1 && $0.first?.isEmpty == false }, "copies share one collapse key")
        XCTAssertGreaterThan(counting.most, 25, "the next batch was read and sent while the previous one was open")
        XCTAssertLessThanOrEqual(counting.most, 60, "PSH-10: never more than maxInFlight open")
        XCTAssertLessThanOrEqual(try XCTUnwrap(harness.standin.backend.fcm.mostConcurrentStreams.values.max()), 100)
        let recorded = chunks.withLock { $0 }
        XCTAssertGreaterThan(recorded.count, 1, "recorded in chunks as sends finish")
        XCTAssertTrue(recorded.allSatisfy { $0.sent + $0.failed <= PushSender.settleBatch })
        XCTAssertEqual(recorded.map(\.sent).reduce(0, +), 330)
    }

    func testDeferredSendsComeBackInTheSameRunWhenDue() async throws {
        let harness = try await FCMHarness(self)
        let (store, accepted) = try store(users: 60, notifications: 120, harness)
        harness.standin.backend.fcm.add(FCMFault(.serverError(status: 503), times: 3))
        harness.standin.backend.fcm.add(FCMFault(.slow(seconds: 0.02), times: nil))
        let clock = harness.clock
        let sender = PushSender(store: store, client: harness.client(), projectID: FCMHarness.projectID, maxInFlight: 8, clock: { clock.now })
        let run = Task { try await sender.sendAllDue() }
        // The three 503s wait >= 10 s (PSH-9); the run is still sending the rest when that has passed.
        try await Task.sleep(for: .milliseconds(100))
        clock.advance(700)
        let report = try await run.value
        XCTAssertEqual(report.deferredReasons["UNAVAILABLE"], 3)
        XCTAssertEqual(report.sent, 120)
        XCTAssertEqual(Set(report.sentNotifications), Set(accepted))
        XCTAssertEqual(try store.statusCounts()[.sent], 120)
        XCTAssertEqual(harness.standin.backend.fcm.received.count, 123)
        let nothingLeft = await sender.nextRetry
        XCTAssertNil(nothingLeft)
    }

    func testRestartMidRunResendsOnlyWhatWasNotRecorded() async throws {
        let harness = try await FCMHarness(self)
        let (store, accepted) = try store(users: 100, notifications: 200, harness)
        harness.standin.backend.fcm.add(FCMFault(.slow(seconds: 0.02), times: nil))
        let clock = harness.clock
        let maxInFlight = 8
        let first = PushSender(store: store, client: harness.client(), projectID: FCMHarness.projectID, maxInFlight: maxInFlight,
                               clock: { clock.now })
        let relay = PushRelay(store: store, sender: first, pollSeconds: 3600, clock: { clock.now })
        let running = Task { await relay.run() }
        for _ in 0..<400 where (try store.statusCounts()[.sent] ?? 0) < 40 { try await Task.sleep(for: .milliseconds(10)) }
        running.cancel()
        await running.value
        let sentBefore = Set(try (0..<100).flatMap { try store.notifications(userID: "u\($0)", status: .sent).map(\.id) })
        XCTAssertGreaterThanOrEqual(sentBefore.count, 40)
        XCTAssertLessThan(sentBefore.count, 200, "stopped part way")
        let receivedBefore = harness.standin.backend.fcm.received.count

        // A new process: nothing in memory, everything from the store.
        let second = PushSender(store: store, client: harness.client(), projectID: FCMHarness.projectID, maxInFlight: maxInFlight,
                                clock: { clock.now })
        _ = try await second.sendAllDue()
        XCTAssertEqual(try store.statusCounts()[.sent], 200, "nothing lost")
        let all = harness.standin.backend.fcm.received
        let after = ids(Array(all.dropFirst(receivedBefore)))
        XCTAssertTrue(Set(after).isDisjoint(with: sentBefore), "nothing recorded SENT is sent again")
        XCTAssertEqual(Set(ids(all)), Set(accepted))
        // Only sends open when the first process stopped can have gone out twice (their answers
        // were never recorded); each copy carries the notification's collapse key (PSH-6).
        let repeats = ids(all).count - Set(ids(all)).count
        XCTAssertLessThanOrEqual(repeats, maxInFlight)
    }
}

/// PSH-10 over HTTP/2 with TLS against the FCM stand-in: streams multiplexed (at most 100 per
/// connection), and a GOAWAY partway through loses nothing.
final class PushSenderHTTP2Tests: XCTestCase {
    func testGoAwayMidBatchLosesNothingAndStreamsStayWithinTheLimit() async throws {
        let harness = try await FCMHarness(self, tls: true)
        let (store, directory) = try makePushStore()
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        let now = Int64(harness.clock.now)
        for user in 0..<100 { _ = try store.registerDevice(userID: "u\(user)", token: "tok-\(user)", platform: .android, now: now) }
        _ = try store.accept(try (0..<300).map { i in
            try PushNotification(userID: "u\(i % 100)", type: .deliveryUpdate, priority: .urgent, title: "Delivery \(i)", body: "",
                                 ttlSeconds: 3600, createdAt: now)
        }, now: now)
        // The first message drains its connection; the rest are answered slowly enough that
        // 200 sends are really open at once.
        harness.standin.backend.fcm.add(FCMFault(.goAway, times: 1))
        harness.standin.backend.fcm.add(FCMFault(.slow(seconds: 0.1), times: nil))
        let clock = harness.clock
        let sender = PushSender(store: store, client: harness.client(), projectID: FCMHarness.projectID, maxInFlight: 200, clock: { clock.now })
        var report = try await sender.sendDue(limit: 1000)
        if report.deferred > 0 {
            // Broken by the GOAWAY: tried again on a new connection within about a second.
            let next = await sender.nextRetry
            let retry = try XCTUnwrap(next)
            XCTAssertLessThanOrEqual(retry - clock.now, 1.6)
        }
        // A send the closing connection broke is retried, never lost.
        for _ in 0..<5 where report.deferred > 0 {
            clock.advance(700)
            report = try await sender.sendDue(limit: 1000)
        }
        XCTAssertEqual(try store.statusCounts()[.sent], 300)
        // The relay's transport (FCMTransport, swift-nio-http2) lets the streams the server took
        // finish and moves the rest to a new connection; a message can still be sent twice when
        // the connection closes between the server taking it and its answer. Every copy carries
        // its notification's tag and collapse key, so the phone replaces rather than stacks
        // (PSH-6), and none is lost.
        //
        // How many: the stand-in's drain (Hummingbird's HTTP/2 connection manager) sometimes
        // closes the connection with streams it took still unanswered, so up to that
        // connection's open streams can repeat. Measured 2026-11-29, eight runs each: 2-14 on
        // a8269e8 (AsyncHTTPClient), 1-23 and 0-24 with this stop's changes; the earlier bound
        // of 20 sat inside that spread and failed CI once. The bound is now what the assertion
        // says: the closing connection's streams (at most 100, PSH-10), where libcurl 7.88
        // (before issue #17) re-sent everything in flight on both connections (up to 200).
        let fcm = harness.standin.backend.fcm
        let accepted = fcm.received.filter { $0.status == 200 }
        var tagsByTitle: [String: Set<String>] = [:]
        for message in accepted {
            guard let title = message.message?["notification"]?["title"]?.stringValue else { continue }
            tagsByTitle[title, default: []].insert(message.message?["android"]?["collapse_key"]?.stringValue ?? "")
            tagsByTitle[title, default: []].insert(message.message?["apns"]?["headers"]?["apns-collapse-id"]?.stringValue ?? "")
        }
        XCTAssertEqual(tagsByTitle.count, 300, "every notification reached the server")
        XCTAssertTrue(tagsByTitle.values.allSatisfy { $0.count == 1 && $0.first?.isEmpty == false }, "copies share one collapse key")
        XCTAssertLessThanOrEqual(accepted.count - 300, 100, "only sends whose answer the closing connection lost can repeat")
        XCTAssertGreaterThanOrEqual(Set(fcm.received.map(\.connection)).count, 2, "the GOAWAY moved sending to a new connection")
        let most = try XCTUnwrap(fcm.mostConcurrentStreams.values.max())
        XCTAssertLessThanOrEqual(most, 100, "PSH-10: at most 100 concurrent streams per connection")
        XCTAssertGreaterThan(most, 1, "streams were multiplexed")
    }
}

/// Issue #17: the client's own HTTP/2 behaviour must never cost a send a retry. The stand-in
/// keeps swift-nio-http2's reset-flood guard (a real FCM front end has one too): a client that
/// resets streams the server already finished gets GOAWAY, and the sends in flight on that
/// connection fail and wait for a retry nobody asked for. 20,000 sends, 200 at a time.
final class PushSenderNoUnrequestedRetryTests: XCTestCase {
    func testTwentyThousandSendsNeedNoRetryTheServerDidNotAskFor() async throws {
        let count = Int(ProcessInfo.processInfo.environment["EDGE_PUSH_SENDS"] ?? "") ?? 20_000
        let harness = try await FCMHarness(self, tls: true)
        let (store, directory) = try makePushStore()
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        let now = Int64(harness.clock.now)
        // One device per user: the per-device limits (240/min) stay out of the way.
        let users = 2_000
        for user in 0..<users { _ = try store.registerDevice(userID: "u\(user)", token: "tok-\(user)", platform: .android, now: now) }
        for batch in stride(from: 0, to: count, by: 1_000) {
            _ = try store.accept(try (batch..<min(count, batch + 1_000)).map { i in
                try PushNotification(userID: "u\(i % users)", type: .deliveryUpdate, priority: .urgent, title: "Delivery \(i)", body: "",
                                     ttlSeconds: 3600, createdAt: now)
            }, now: now)
        }
        let clock = harness.clock
        let sender = PushSender(store: store, client: harness.client(), projectID: FCMHarness.projectID, maxInFlight: 200, clock: { clock.now })
        var total = PushSendReport()
        while total.sent + total.deferred + total.failed < count {
            let report = try await sender.sendDue(limit: 5_000)
            total.add(report)
            if report.sent + report.deferred + report.failed == 0 { break }
        }
        XCTAssertEqual(total.deferredReasons, [:], "sends waited for a retry the server did not ask for")
        XCTAssertEqual(total.sent, count)
        let accepted = harness.standin.backend.fcm.received.filter { $0.status == 200 }.count
        XCTAssertEqual(accepted, count, "each notification reached the server once")
    }
}

