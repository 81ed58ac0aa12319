import EdgeHTTP
import EdgeStore
import EdgeSync
import Foundation
import GRDB

/// The sync core's figures (issue 5): durable enqueues (WAL, synchronous=FULL: one fsync per
/// commit) one at a time with their latency, then a drain of them all through the real sender
/// and libcurl transport to the stand-in at `baseURL` on loopback.
///
/// The drain runs without the SYN-8 client limit (100 requests a minute), which would make it
/// measure the limit, not the sender; `drain_limited_per_s` says what production allows.
func syncBench(count: Int, baseURL: String, token: String) async throws {
    let dir = NSTemporaryDirectory() + "edge-bench-sync-\(getpid())"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let outbox = Outbox(database: try EdgeDatabase(path: dir + "/edge.sqlite"))
    let payload = Array(#"{"type":"scan","symbology":"code128","text":"PO-2024-00042","station":"dock-1"}"#.utf8)
    var latencies: [Double] = []
    let clock = ContinuousClock()
    func ms(_ d: Duration) -> Double { Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15 }
    let start = clock.now
    for index in 0..<count {
        let t0 = clock.now
        // The synchronous write, as a capability enqueues from its own transaction.
        try enqueueOne(outbox, stream: "bench/\(index % 16)", payload: payload)
        latencies.append(ms(clock.now - t0))
    }
    let enqueueSeconds = ms(clock.now - start) / 1000
    latencies.sort()

    struct Token: TokenProvider {
        let value: String
        func token(for credential: String?) async throws -> BearerToken? { BearerToken(value) }
    }
    let transport = try CurlTransport(options: TransportOptions())
    defer { transport.shutdown() }
    var configuration = SenderConfiguration(baseURL: baseURL, identity: SyncIdentity.current(deviceID: "00000000-0000-4000-8000-00000000be9c", appVersion: "bench"))
    configuration.requestsPerMinute = Int.max / 2
    configuration.concurrency = 16
    let sender = OutboxSender(outbox: outbox, transport: transport, tokens: Token(value: token), configuration: configuration)
    let drainStart = clock.now
    let report = await sender.drain(manual: true)
    let drainSeconds = ms(clock.now - drainStart) / 1000
    print(json([
        "entries": count,
        "enqueue_per_s": Double(count) / enqueueSeconds,
        "enqueue_p50_ms": latencies[latencies.count / 2],
        "enqueue_p99_ms": latencies[min(latencies.count - 1, latencies.count * 99 / 100)],
        "drain_sent": report.sent,
        "drain_per_s": Double(report.sent) / drainSeconds,
        "drain_limited_per_s": 100.0 / 60.0,
    ]))
}

private func enqueueOne(_ outbox: Outbox, stream: String, payload: [UInt8]) throws {
    try outbox.database.dbWriter.write { db in
        _ = try outbox.enqueue(db, stream: stream, kind: "scan", payload: payload)
    }
}
