import EdgeTestSupport
import Foundation
import XCTest

/// Issue #30 item 2, end to end: `edge run` under Debian's libfaketime, whose wall clock the test
/// steps while the station runs (FAKETIME_TIMESTAMP_FILE, re-read on every call); the monotonic
/// and boot clocks stay real, as they do when NTP or an operator steps a station's clock.
final class ClockStepTests: XCTestCase {
    static let library = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1"

    /// Entries told to wait by the backend, then the clock stepped back an hour: they go out when
    /// the wait ends, not an hour later; then ten years forward: new entries go out, and every
    /// entry is applied once.
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
        environment["LD_PRELOAD"] = try Self.timerShim(in: directory) + ":" + Self.library
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

        // The backend asks for ten seconds' quiet: the first entry waits ten seconds, and the
        // others, due, wait for the quiet to end.
        try standin.control("POST", "/_standin/faults",
                            json: #"{"faults": [{"kind": "status", "path_prefix": "/api/sync/push", "times": 1, "parameters": {"status": 503, "retry_after": "10", "code": "UNAVAILABLE", "message": "busy"}}]}"#)
        try enqueue(3, marker: "before")
        try await eventually("the station tried and was told to wait", timeout: .seconds(30)) { try pushes() >= 1 }
        // An operator corrects the clock: one hour back, within those ten seconds. Every entry
        // keeps what remained of its wait: an hour more each, before (seen failing), held all.
        try Data("-1h\n".utf8).write(to: URL(fileURLWithPath: clockFile))
        try await eventually("the waiting entries sent after the step back", timeout: .seconds(30)) { try applied().count == 3 }

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

    /// libfaketime 0.9.10 moves an absolute CLOCK_BOOTTIME timer's deadline by its offset,
    /// although with FAKETIME_DONT_FAKE_MONOTONIC it does not fake that clock's readings: after a
    /// step back every Swift sleep (ContinuousClock: libdispatch's timerfd on CLOCK_BOOTTIME)
    /// waited the step too, which no real step does (seen: the agent stalled an hour). Preloaded
    /// before libfaketime, this passes timerfd_settime to the kernel untouched, as a real step
    /// leaves it; clock readings stay libfaketime's.
    static func timerShim(in directory: URL) throws -> String {
        let source = directory.appendingPathComponent("real-timers.c")
        let library = directory.appendingPathComponent("real-timers.so")
        try Data("""
            #include <sys/syscall.h>
            #include <sys/timerfd.h>
            #include <unistd.h>
            int timerfd_settime(int fd, int flags, const struct itimerspec *value, struct itimerspec *old) {
                return (int)syscall(SYS_timerfd_settime, fd, flags, value, old);
            }
            """.utf8).write(to: source)
        _ = try Command.shell("clang -shared -fPIC -O2 -o '\(library.path)' '\(source.path)'")
        return library.path
    }
}
