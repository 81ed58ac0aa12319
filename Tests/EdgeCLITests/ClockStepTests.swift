import EdgeTestSupport
import Foundation
import XCTest

/// Issue #30 item 2, end to end: `edge run` under Debian's libfaketime, whose wall clock the test
/// steps while the station runs (FAKETIME_TIMESTAMP_FILE, re-read on every call); the monotonic
/// and boot clocks stay real, as they do when NTP or an operator steps a station's clock.
final class ClockStepTests: XCTestCase {
    static let library = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1"

    /// Entries backed off by a failing backend, then the clock stepped back an hour: they go out
    /// as soon as the backend is back, not an hour later; then ten years forward: new entries go
    /// out, and every entry is applied once.
    func testEntriesGoOutOnceWhetherTheClockStepsBackOrForward() async throws {
        // CI installs faketime (.ci/install-deps): a missing library is a broken CI, not a skip.
        guard FileManager.default.fileExists(atPath: Self.library) else {
            return XCTFail("\(Self.library) is missing: apt-get install faketime (.ci/install-deps installs it)")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("edge-clock-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let token = "clock-\(UUID().uuidString)"
        let standin = try StandinProcess(token: token)
        let config = directory.appendingPathComponent("edge.json").path
        try Data("""
            {"sync": {"base_url": "\(standin.baseURL)", "connect_timeout": 2, "total_timeout": 4},
             "station": {"name": "clock-test", "state_dir": ".", "vault_dir": "vault", "vault_key_dir": "vault-keys", "vault_backend": "keyfile",
                         "pull_interval": 1, "cameras": []},
             "ui": {"enabled": false}}
            """.utf8).write(to: URL(fileURLWithPath: config))
        XCTAssertEqual(try EdgeProcess.run(["vault", "put", "sync.token", "--dir", directory.appendingPathComponent("vault").path, "--backend", "keyfile"],
                                           input: Data(token.utf8)).status, 0)
        func enqueue(_ count: Int, marker: String) throws {
            for n in 0..<count {
                let outcome = try EdgeProcess.run(["sync", "enqueue", "clock/\(marker)-\(n)", "--kind", "scan", "--json-file", "-", "--config", config],
                                                  cwd: directory, input: Data(#"{"marker":"\#(marker)-\#(n)"}"#.utf8))
                XCTAssertEqual(outcome.status, 0, outcome.stderr)
            }
        }
        func applied() throws -> [Int] {
            let data = try standin.control("GET", "/_standin/applied")
            return (try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? [])
                .filter { ($0["path"] as? String) == "/api/sync/push" }.compactMap { $0["applications"] as? Int }
        }
        func pushes() throws -> Int {
            let data = try standin.control("GET", "/_standin/requests")
            return (try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []).filter { ($0["path"] as? String) == "/api/sync/push" }.count
        }

        let clockFile = directory.appendingPathComponent("faketime").path
        try Data("+0\n".utf8).write(to: URL(fileURLWithPath: clockFile))
        let agent = Process()
        // Through timeout(1), which bounds the run and passes SIGTERM on: libfaketime preloaded
        // into the Swift binary as the first program of the process loses its arguments (seen:
        // `edge --version` prints the usage), started by timeout it does not.
        agent.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        agent.arguments = ["180", try EdgeProcess.executable().path, "run", "--config", config]
        agent.currentDirectoryURL = directory
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("EDGE_") && $0.key != "NOTIFY_SOCKET" }
        environment["LD_PRELOAD"] = Self.library
        environment["FAKETIME_TIMESTAMP_FILE"] = clockFile
        environment["FAKETIME_NO_CACHE"] = "1"
        environment["FAKETIME_DONT_FAKE_MONOTONIC"] = "1"
        agent.environment = environment
        let log = directory.appendingPathComponent("agent.log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        agent.standardError = try FileHandle(forWritingTo: log)
        agent.standardOutput = agent.standardError
        defer { if testRun?.hasSucceeded == false { print(String(decoding: (try? Data(contentsOf: log)) ?? Data(), as: UTF8.self).suffix(3000)) } }
        try agent.run()
        defer { if agent.isRunning { _ = try? Command.shell("pkill -KILL -P \(agent.processIdentifier)") } }

        // The backend fails every push: the entries back off (and the sender pauses).
        try standin.control("POST", "/_standin/faults",
                            json: #"{"faults": [{"kind": "status", "path_prefix": "/api/sync/push", "parameters": {"status": 503, "code": "UNAVAILABLE", "message": "down"}}]}"#)
        try enqueue(3, marker: "before")
        try await eventually("the station tried and backed off", timeout: .seconds(30)) { try pushes() >= 2 }
        // An operator corrects the clock: one hour back. The backend comes back.
        try Data("-1h\n".utf8).write(to: URL(fileURLWithPath: clockFile))
        try standin.control("DELETE", "/_standin/faults")
        try await eventually("the backed-off entries sent after the step back", timeout: .seconds(30)) { try applied().count == 3 }

        // NTP finds the station ten years behind.
        try Data("+3650d\n".utf8).write(to: URL(fileURLWithPath: clockFile))
        try enqueue(2, marker: "after")
        try await eventually("the new entries sent after the step forward", timeout: .seconds(30)) { try applied().count == 5 }
        XCTAssertEqual(try applied(), [1, 1, 1, 1, 1], "every entry applied once")

        // SIGTERM to edge itself (timeout's child), as systemd sends it; timeout exits with its status.
        let edge = try XCTUnwrap(Int32(try Command.shell("pgrep -P \(agent.processIdentifier)").trimmingCharacters(in: .whitespacesAndNewlines)))
        kill(edge, SIGTERM)
        agent.waitUntilExit()
        XCTAssertEqual(agent.terminationStatus, 0, "edge run stops cleanly under the stepped clock")
    }
}
