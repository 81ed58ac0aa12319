import EdgeCore
import EdgeFCM
import EdgeFCMTransport
import EdgeHTTP
import EdgePush
import EdgeStore
import EdgeSync
import Foundation
import Synchronization

/// The push relay's figure (issue 6): notifications per second end to end - intake (a batch of
/// notifications recorded in one transaction), decision (preferences, quiet hours in the user's
/// zone), durable record (WAL, synchronous=FULL), HTTP/2 send to the FCM stand-in at `baseURL`
/// (HTTP/2 over TLS on loopback, OAuth token from its /token), record updated SENT - with the latency of
/// each notification from intake to its SENT record.
///
/// Two runs on one relay: `paced` offers `rate` notifications a second in batches every 10 ms
/// (latency at that load), `saturated` offers them all at once (the most it can do). `runs`
/// picks which (Benchmarks/run.py runs `saturated` alone under callgrind, for N and 2N, so the
/// difference is the instructions of N notifications with the fixed start cost cancelled).
func pushBench(count: Int, rate: Double, baseURL: String, serviceAccountPath: String, caFile: String,
               maxInFlight: Int = PushSender.defaultMaxInFlight, runs: Set<String> = ["paced", "saturated"]) async throws {
    let dir = NSTemporaryDirectory() + "edge-bench-push-\(getpid())"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let store = try PushStore(database: try EdgeDatabase(path: dir + "/edge.sqlite"), stationZone: "UTC")
    let account = try ServiceAccount(json: Array(try Data(contentsOf: URL(fileURLWithPath: serviceAccountPath))))

    // 1,000 users with a phone each, in four zones, quiet hours that do not cover the present
    // (so the decision is made, and it is "send now").
    let users = 1000
    let zones = ["UTC", "Europe/Berlin", "America/New_York", "Asia/Tokyo"]
    let now = Int64(Date().timeIntervalSince1970)
    for user in 0..<users {
        let zone = zones[user % zones.count]
        let local = try TimeZoneDatabase.system.rules(for: zone).zonedTime(at: now).local
        let start = try TimeOfDay(hour: (local.hour + 2) % 24), end = try TimeOfDay(hour: (local.hour + 4) % 24)
        try store.savePreferences(try PushPreferences(userID: "user-\(user)", timeZone: zone, quietHours: QuietHours(start: start, end: end)), now: now)
        try store.registerDevice(userID: "user-\(user)", token: "bench-device-\(user)-" + String(repeating: "x", count: 140), platform: .android, now: now)
    }

    let options = TransportOptions(connectTimeout: 5, totalTimeout: 30, caFile: caFile)
    // The relay's transport (FCMTransport, AsyncHTTPClient); EDGE_PUSH_TRANSPORT=curl measures
    // libcurl's, which the relay used before issue #17.
    let transport: any HTTPTransport
    let close: () -> Void
    if ProcessInfo.processInfo.environment["EDGE_PUSH_TRANSPORT"] == "curl" {
        let curl = try CurlTransport(options: options)
        (transport, close) = (curl, curl.shutdown)
    } else {
        let nio = try FCMTransport(options: options)
        (transport, close) = (nio, nio.shutdown)
    }
    defer { close() }
    let tokens = OAuthTokenSource(account: account, transport: transport)
    let client = FCMClient(configuration: FCMClientConfiguration(endpoint: baseURL), transport: transport, tokens: tokens)
    let sender = PushSender(store: store, client: client, projectID: account.projectID, maxInFlight: maxInFlight)
    let relay = PushRelay(store: store, sender: sender, pollSeconds: 0.05)
    _ = try await tokens.accessToken()

    let clock = ContinuousClock()
    let origin = clock.now
    @Sendable func seconds() -> Double {
        let d = clock.now - origin
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
    // id → intake time; SENT ids → completion time, filled by the relay's reports.
    let times = BenchTimes()

    // On the station's own threads, as `Agent.run` runs the relay (issue #30 item 5).
    let relayTask = Task(executorPreference: StationExecutor.shared) {
        await relay.run(onReport: { report in
            let at = seconds()
            times.done.withLock { done in for id in report.sentNotifications { done[id] = at } }
            if report.failed > 0 { times.failures.withLock { $0 += report.failed } }
            if !report.deferredReasons.isEmpty { times.deferred.withLock { $0.merge(report.deferredReasons, uniquingKeysWith: +) } }
        })
    }
    defer { relayTask.cancel() }

    func runOnce(_ label: String, paced: Bool) async throws -> [String: Any] {
        times.intake.withLock { $0 = [:] }
        times.done.withLock { $0 = [:] }
        let batch = paced ? max(1, Int(rate / 100)) : 500
        let cpuBefore = processCPUSeconds()
        let start = seconds()
        var offered = 0
        var serial = 0
        while offered < count {
            let size = min(batch, count - offered)
            let notifications = try (0..<size).map { _ in
                serial += 1
                return try PushNotification(userID: "user-\(serial % users)", type: serial % 5 == 0 ? .approvalPending : .deliveryUpdate,
                                            priority: serial % 7 == 0 ? .urgent : .high, title: "Delivery \(serial) at dock \(serial % 8)",
                                            body: "PO-2026-\(String(format: "%05d", serial % 100000)) received, \(serial % 40 + 1) lines",
                                            deepLink: "/purchase-orders/PO-2026-\(String(format: "%05d", serial % 100000))",
                                            ttlSeconds: 3600, createdAt: Int64(Date().timeIntervalSince1970))
            }
            let at = seconds()
            let accepted = try store.accept(notifications, now: Int64(Date().timeIntervalSince1970))
            times.intake.withLock { times in for a in accepted { times[a.record.id] = at } }
            relay.wake()
            offered += size
            if paced {
                let due = start + Double(offered) / rate
                let wait = due - seconds()
                if wait > 0 { try await Task.sleep(for: .seconds(wait)) }
            }
        }
        let intakeSeconds = seconds() - start
        // Wait for every record to be SENT (or 60 s, then report what was).
        let deadline = seconds() + 60
        while times.done.withLock({ $0.count }) < count, seconds() < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        let intake = times.intake.withLock { $0 }
        let done = times.done.withLock { $0 }
        var latencies = done.compactMap { id, at in intake[id].map { (at - $0) * 1000 } }
        latencies.sort()
        let last = done.values.max() ?? seconds()
        func pct(_ p: Int) -> Double { latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, latencies.count * p / 100)] }
        // The rate until 99 % were SENT: the end-to-end figure ends with the last one, often a send
        // whose HTTP/2 connection libcurl 7.88 broke and that waited ~1 s for its retry.
        let finished = done.values.sorted(), most = max(1, count * 99 / 100)
        let ninetyNine = finished.isEmpty ? 0 : Double(most) / (finished[min(finished.count, most) - 1] - start)
        return [
            "run": label, "notifications": count, "sent": done.count, "offered_per_s": Double(count) / intakeSeconds,
            "end_to_end_per_s": Double(done.count) / (last - start), "first_99_percent_per_s": ninetyNine,
            "p50_ms": pct(50), "p99_ms": pct(99), "max_ms": latencies.last ?? 0,
            // The whole relay process (intake, store, sender, transport), not the stand-in.
            "relay_cpu_ms_per_notification": (processCPUSeconds() - cpuBefore) * 1000 / Double(max(1, count)),
        ]
    }

    var result: [String: Any] = ["users": users, "rate": rate, "max_in_flight": maxInFlight]
    if runs.contains("paced") { result["paced"] = try await runOnce("paced", paced: true) }
    if runs.contains("saturated") { result["saturated"] = try await runOnce("saturated", paced: false) }
    result["failed"] = times.failures.withLock { $0 }
    result["deferred"] = times.deferred.withLock { $0 }
    print(json(result))
}

/// What the relay's reports and the intake loop share.
final class BenchTimes: Sendable {
    /// Notification id → seconds at intake.
    let intake = Mutex<[Int64: Double]>([:])
    /// Notification id → seconds when its SENT record was written.
    let done = Mutex<[Int64: Double]>([:])
    let failures = Mutex(0)
    /// Why sends had to wait for a retry, by reason.
    let deferred = Mutex<[String: Int]>([:])
}

/// User plus system CPU time of this process so far (getrusage), in seconds.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}
