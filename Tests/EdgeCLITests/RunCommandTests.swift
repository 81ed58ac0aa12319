import EdgeTestSupport
import Foundation
import FoundationNetworking
import XCTest

/// `edge run` as systemd and an operator run it: a replayed camera, the stand-in as the backend
/// (a child process that outlives the agents the tests stop and kill), signals, `edge status`.
final class RunCommandTests: XCTestCase {
    private var directory: URL!
    private var vault: String { directory.appendingPathComponent("vault").path }
    private var config: URL { directory.appendingPathComponent("edge.json") }

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("edge-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    /// A station whose camera replays two labels at `fps`, reporting every frame's codes
    /// (repeat gap 0) so that there are many transactions to interrupt.
    private func writeConfiguration(_ standin: StandinProcess, fps: Int = 30, gap: Double = 0, broken: Bool = false) throws {
        let samples = EdgeProcess.samples.path
        let text = broken ? #"{"station": {"cameras": [{"name": "dock"}]}}"# : """
            {"sync": {"base_url": "\(standin.baseURL)", "connect_timeout": 2, "total_timeout": 4},
             "station": {"name": "dock-test", "state_dir": ".", "vault_dir": "vault", "vault_key_dir": "vault-keys", "vault_backend": "keyfile", "repeat_gap": \(gap),
                         "pull_interval": 1, "metrics": "127.0.0.1:0",
                         "cameras": [{"name": "dock", "device": "replay:\(samples)/po-code128.png,\(samples)/material.png", "fps": \(fps)}]},
             "ui": {"listen": "127.0.0.1:0"}}
            """
        try Data(text.utf8).write(to: config)
    }

    private func startAgent() throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = try EdgeProcess.executable()
        process.arguments = ["run", "--config", config.path]
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("EDGE_") && $0.key != "NOTIFY_SOCKET" }
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return (process, errors)
    }

    private func applied(_ standin: StandinProcess) throws -> [[String: Any]] {
        let data = try standin.control("GET", "/_standin/applied")
        return (try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []).filter { ($0["path"] as? String) == "/api/sync/push" }
    }

    private func scalar(_ sql: String) throws -> Int {
        Int(try Command.shell("sqlite3 '\(directory.appendingPathComponent("edge.sqlite").path)' \"\(sql)\"")) ?? -1
    }

    private func waitForExit(_ process: Process, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        return !process.isRunning
    }

    func testSIGTERMStopsCleanlyAndSIGHUPWithABrokenFileKeepsTheConfiguration() async throws {
        let token = "run-\(UUID().uuidString)"
        let standin = try StandinProcess(token: token)
        try writeConfiguration(standin, fps: 20, gap: 1.5)
        XCTAssertEqual(try EdgeProcess.run(["vault", "put", "sync.token", "--dir", vault, "--backend", "keyfile"], input: Data(token.utf8)).status, 0)
        let (agent, errors) = try startAgent()
        defer { if agent.isRunning { agent.interrupt(); agent.waitUntilExit() } }

        try await eventually("scan events applied on the stand-in") { try self.applied(standin).count >= 2 }
        try await eventually("edge status with nothing missing") {
            try EdgeProcess.run(["status", "--config", self.config.path]).status == 0
        }
        let status = try EdgeProcess.run(["status", "--json", "--config", config.path])
        XCTAssertEqual(status.status, 0, status.stdout + status.stderr)
        try PythonCheck.validate(json: Data(status.stdout.utf8), schema: PackageFiles.path("models/station-status.schema.json"))
        XCTAssertTrue(status.stdout.contains(#""running":true"#), status.stdout)

        // SIGHUP with a broken file: refused with the reason, the agent and its camera go on.
        try writeConfiguration(standin, broken: true)
        kill(agent.processIdentifier, SIGHUP)
        let statusFile = directory.appendingPathComponent("agent-status.json")
        try await eventually("the refusal in the agent's status") {
            let data = (try? Data(contentsOf: statusFile)) ?? Data()
            let document = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            let error = (document?["snapshot"] as? [String: Any])?["lastReloadError"] as? String
            return error?.contains("station.cameras[0].device") == true
        }
        XCTAssertTrue(agent.isRunning)

        // SIGTERM: exit 0, everything recorded is either applied once or still queued.
        kill(agent.processIdentifier, SIGTERM)
        XCTAssertTrue(waitForExit(agent, seconds: 15), "edge run did not stop on SIGTERM")
        XCTAssertEqual(agent.terminationStatus, 0)
        let log = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(log.contains("event=agent.reload_refused"), log)
        XCTAssertTrue(log.contains("event=agent.stopped"), log)
        XCTAssertFalse(log.contains(token), "the token reached the log")
        try writeConfiguration(standin, fps: 20, gap: 1.5)
        let synced = try scalar("SELECT COUNT(*) FROM scan_events WHERE action = 'sync'")
        let queued = try scalar("SELECT COUNT(*) FROM outbox")
        let records = try applied(standin)
        XCTAssertEqual(records.count + queued, synced)
        XCTAssertTrue(records.allSatisfy { ($0["applications"] as? Int) == 1 })
        let stopped = try EdgeProcess.run(["status", "--config", config.path])
        XCTAssertTrue(stopped.stdout.contains("agent: not running"), stopped.stdout)
    }

    /// AGT-8 (the SYN-12 proof extended to the agent): `edge run` is SIGKILLed at random moments
    /// while its camera records events and the stand-in injects faults; restarted and killed
    /// again. Then one drain with the faults off: every committed event applied exactly once,
    /// counted from the station's side (its scan_events rows marked for sync) against the
    /// stand-in's applied keys. `EDGE_AGENT_CRASH_CYCLES` sets the cycles (default 12; `.ci/test`
    /// runs 200 under CI).
    func testKilledAgentLosesNoCommittedEventAndSendsNoneTwice() async throws {
        let cycles = Int(ProcessInfo.processInfo.environment["EDGE_AGENT_CRASH_CYCLES"] ?? "") ?? 12
        let token = "agent-crash-\(UUID().uuidString)"
        // The demo orders: the camera's PO label opens PO-2026-00042 for the receipt edits.
        let standin = try StandinProcess(token: token, extraArguments: ["--seed-demo-data"])
        // About 8 events a second: a few per cycle, and few enough in all that the final drain
        // stays within one burst of the SYN-8 rate limit (100 a minute).
        try writeConfiguration(standin, fps: 8)
        XCTAssertEqual(try EdgeProcess.run(["vault", "put", "sync.token", "--dir", vault, "--backend", "keyfile"], input: Data(token.utf8)).status, 0)
        let seed = try standin.injectRandomPushFaults(probability: 0.3)
        // RCV-8 in the same kills: a screen edits the open order's receipt (line 3 set to 1, 2,
        // 3, ... as fast as the kiosk answers) while the camera counts the material on line 1.
        let edits = ReceiptEdits()
        for cycle in 0..<cycles {
            let (agent, _) = try startAgent()
            edits.begin()
            let editor = Task.detached { [directory] in
                await edits.edit(statusFile: directory!.appendingPathComponent("agent-status.json"), pid: agent.processIdentifier)
            }
            // Every third run lives long enough for its kiosk to be editing when the kill comes.
            usleep(cycle % 3 == 2 ? UInt32.random(in: 1_500_000...2_500_000) : UInt32.random(in: 200_000...900_000))
            kill(agent.processIdentifier, SIGKILL)
            agent.waitUntilExit()
            // A flag, not cancellation: cancelling a task inside URLSession's data(for:) can
            // deadlock FoundationNetworking on Linux; the killed kiosk refuses at once anyway.
            edits.stop()
            await editor.value
        }
        try standin.control("DELETE", "/_standin/faults")
        let synced = try scalar("SELECT COUNT(*) FROM scan_events WHERE action = 'sync'")
        XCTAssertGreaterThan(synced, cycles, "the camera recorded too few events to prove anything")
        let drain = try EdgeProcess.run(["sync", "run", "--no-pull", "--config", config.path, "--dir", vault, "--backend", "keyfile"])
        XCTAssertEqual(drain.status, 0, "seed \(seed): " + drain.stdout + drain.stderr)
        XCTAssertEqual(try scalar("SELECT COUNT(*) FROM outbox"), 0)
        XCTAssertEqual(try scalar("SELECT COUNT(*) FROM scan_events WHERE action = 'sync' AND outbox_id IS NULL"), 0)
        let records = try applied(standin)
        XCTAssertEqual(records.count, synced, "seed \(seed): events committed vs keys applied")
        XCTAssertTrue(records.allSatisfy { ($0["applications"] as? Int) == 1 }, "seed \(seed)")
        XCTAssertEqual(try Command.shell("sqlite3 '\(directory.appendingPathComponent("edge.sqlite").path)' 'PRAGMA integrity_check'"), "ok")

        // The receipt: line 3 holds the last edit acknowledged, or a later one whose answer the
        // kill cut off; never an older one. Line 1's quantity is exactly its counts.
        let (acknowledged, attempted) = edits.range
        XCTAssertGreaterThan(acknowledged, 0, "no receipt edit was acknowledged: the kills proved nothing about receipts")
        let line3 = try scalar("SELECT CAST(received AS INTEGER) FROM receiving_receipt_lines WHERE line_no = 3")
        XCTAssertTrue((acknowledged...attempted).contains(line3), "line 3 is \(line3); acknowledged \(acknowledged), attempted \(attempted)")
        let line1 = try scalar("SELECT CAST(received AS INTEGER) FROM receiving_receipt_lines WHERE line_no = 1")
        XCTAssertEqual(line1, try scalar("SELECT CAST(SUM(quantity) AS INTEGER) FROM receiving_receipt_counts WHERE line_no = 1"))
        XCTAssertGreaterThan(line1, 0, "the camera counted nothing")
    }
}

/// A dock screen editing a receipt while its agent is killed: the highest edit the kiosk
/// acknowledged (200) and the highest it was sent.
private final class ReceiptEdits: @unchecked Sendable {
    private let lock = NSLock()
    private var acknowledged = 0
    private var attempted = 0
    private var stopped = false

    var range: (Int, Int) { lock.withLock { (acknowledged, attempted) } }
    private var isStopped: Bool { lock.withLock { stopped } }

    func stop() { lock.withLock { stopped = true } }
    /// Before each agent's editor starts (so a late-starting editor still sees a later stop).
    func begin() { lock.withLock { stopped = false } }

    /// Until `stop()`: waits for the agent `pid` to report its kiosk in the status file, opens
    /// the demo order and sets line 3 to the next number, again and again.
    func edit(statusFile: URL, pid: Int32) async {
        var base: String?
        while base == nil, !isStopped {
            if let data = try? Data(contentsOf: statusFile), let file = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
               (file["pid"] as? Int).map(Int32.init) == pid {
                base = (file["snapshot"] as? [String: Any])?["uiAddress"] as? String
            }
            if base == nil { try? await Task.sleep(for: .milliseconds(20)) }
        }
        guard let base, let session = try? await Self.send("GET", base + "/api/v1/session", token: nil, body: nil),
              let token = (try? JSONSerialization.jsonObject(with: session.1) as? [String: Any])?["csrf_token"] as? String else { return }
        guard (try? await Self.send("POST", base + "/api/v1/dock/scans", token: token, body: #"{"text": "PO-2026-00042"}"#))?.0 == 200 else { return }
        while !isStopped {
            let next = lock.withLock { attempted += 1; return attempted }
            guard let (status, _) = try? await Self.send("PUT", base + "/api/v1/dock/receipts/PO-2026-00042/lines/3", token: token,
                                                          body: #"{"received": "\#(next)"}"#) else { return }
            if status == 200 { lock.withLock { acknowledged = max(acknowledged, next) } }
        }
    }

    private static func send(_ method: String, _ url: String, token: String?, body: String?) async throws -> (Int, Data) {
        guard let address = URL(string: url) else { return (0, Data()) }
        var request = URLRequest(url: address, timeoutInterval: 5)
        request.httpMethod = method
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        if let token { request.setValue(token, forHTTPHeaderField: "X-CSRF-Token") }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }
}
