import EdgeTestSupport
import Foundation
import XCTest

/// AGT-10 from the command line: `edge config check` lists every problem of edge.json at once
/// (exit 0/1), `edge run` refuses a file with typos before starting, and a SIGHUP with typos is
/// refused while the running configuration stays (AGT-2). The kiosk listens on a free port
/// (`ui.listen` 127.0.0.1:0), never on RunCommandTests' 8080.
final class ConfigCheckCommandTests: XCTestCase {
    private var directory: URL!
    private var config: URL { directory.appendingPathComponent("edge.json") }

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("edge-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
        try? FileManager.default.removeItem(atPath: directory.path + "-keys")  // the station's vault keys sit beside it
    }

    /// Two typos at two depths, each with its nearest known key (and a kiosk on a free port, so
    /// an `edge run` that wrongly accepted the file would not hold 8080).
    private static let typos = #"{"snyc": {"base_url": "http://127.0.0.1:1"}, "station": {"nmae": "dock-1", "vault_backend": "keyfile"}, "ui": {"listen": "127.0.0.1:0"}}"#

    private func expectedTypoLines(_ path: String) -> [String] {
        ["configuration \(path): snyc: unknown key; did you mean sync?",
         "configuration \(path): station.nmae: unknown key; did you mean station.name?"]
    }

    func testTheSampleConfigurationIsValid() throws {
        let sample = EdgeProcess.samples.appendingPathComponent("edge.json").path
        let outcome = try EdgeProcess.run(["config", "check", "--config", sample])
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        XCTAssertEqual(outcome.lines, ["configuration \(sample): ok"])
    }

    func testEveryProblemIsListedAtOnceAndTheCheckFails() throws {
        try Data(Self.typos.utf8).write(to: config)
        let outcome = try EdgeProcess.run(["config", "check", "--config", config.path])
        XCTAssertEqual(outcome.status, 1, outcome.stdout + outcome.stderr)
        XCTAssertEqual(outcome.lines, expectedTypoLines(config.path))
        XCTAssertTrue(outcome.stderr.contains("2 problems"), outcome.stderr)

        // The file from $EDGE_CONFIG, a typo and a bad value in another section.
        try Data(#"{"station": {"pull_interval": 0}, "sync": {"base_url": "http://127.0.0.1:1", "conect_timeout": 2}}"#.utf8).write(to: config)
        let fromEnvironment = try EdgeProcess.run(["config", "check"], environment: ["EDGE_CONFIG": config.path])
        XCTAssertEqual(fromEnvironment.status, 1)
        XCTAssertEqual(fromEnvironment.lines, [
            "configuration \(config.path): sync.conect_timeout: unknown key; did you mean sync.connect_timeout?",
            "configuration \(config.path): station.pull_interval: must be between 1 and 86400 seconds",
        ])

        let missing = try EdgeProcess.run(["config", "check", "--config", directory.appendingPathComponent("none.json").path])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stdout.contains("cannot be read"), missing.stdout)
    }

    func testEdgeRunRefusesAFileWithTyposBeforeStarting() throws {
        try Data(Self.typos.utf8).write(to: config)
        let (process, _, errors) = try startAgent()
        defer { if process.isRunning { process.terminate(); process.waitUntilExit() } }
        guard waitForExit(process, seconds: 30) else { return XCTFail("edge run started with typos in its configuration") }
        XCTAssertEqual(process.terminationStatus, 2)
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        for line in expectedTypoLines(config.path) { XCTAssertTrue(stderr.contains("edge: " + line), stderr) }
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("agent-status.json").path), "nothing started")
    }

    func testSIGHUPWithTyposIsRefusedAndTheRunningConfigurationStays() async throws {
        let camera = "replay:\(EdgeProcess.samples.path)/po-code128.png"
        try Data("""
            {"station": {"name": "hup-test", "state_dir": ".", "vault_backend": "keyfile", "repeat_gap": 3600,
                         "cameras": [{"name": "dock", "device": "\(camera)", "fps": 10}]},
             "ui": {"listen": "127.0.0.1:0"}}
            """.utf8).write(to: config)
        let (agent, _, errors) = try startAgent()
        defer { if agent.isRunning { agent.interrupt(); agent.waitUntilExit() } }
        try await eventually("the camera streams") { (self.status()?.cameras["dock"]?.frames ?? 0) >= 5 }
        let loadedAt = try XCTUnwrap(status()?.configurationLoadedAt)

        // Applied, this file would swap the camera "dock" for "side".
        try Data("""
            {"snyc": {"base_url": "http://127.0.0.1:1"},
             "station": {"nmae": "renamed", "state_dir": ".", "vault_backend": "keyfile",
                         "cameras": [{"name": "side", "device": "\(camera)", "fps": 10}]},
             "ui": {"listen": "127.0.0.1:0"}}
            """.utf8).write(to: config)
        kill(agent.processIdentifier, SIGHUP)
        try await eventually("the refusal in the agent's status") { self.status()?.lastReloadError != nil }
        let refused = try XCTUnwrap(status())
        for line in expectedTypoLines(config.path) {
            XCTAssertTrue(refused.lastReloadError?.contains(line.dropFirst("configuration ".count)) == true, refused.lastReloadError ?? "")
        }
        XCTAssertEqual(refused.configurationLoadedAt, loadedAt, "nothing was applied")
        XCTAssertNil(refused.cameras["side"])
        let frames = refused.cameras["dock"]?.frames ?? 0
        try await eventually("the running camera still streams") { (self.status()?.cameras["dock"]?.frames ?? 0) > frames + 5 }
        XCTAssertTrue(agent.isRunning)

        kill(agent.processIdentifier, SIGTERM)
        guard waitForExit(agent, seconds: 15) else { return XCTFail("edge run did not stop on SIGTERM") }
        XCTAssertEqual(agent.terminationStatus, 0)
        let log = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(log.components(separatedBy: "event=agent.reload_refused").count - 1, 2, "one log line per problem: \(log)")
    }

    // MARK: helpers

    private struct Snapshot: Decodable {
        struct Camera: Decodable { let frames: Int }
        let cameras: [String: Camera]
        let configurationLoadedAt: Double?
        let lastReloadError: String?
    }

    private struct StatusFile: Decodable { let snapshot: Snapshot }

    /// The agent's own status file (`edge status` would load the edited edge.json).
    private func status() -> Snapshot? {
        guard let data = try? Data(contentsOf: directory.appendingPathComponent("agent-status.json")) else { return nil }
        return (try? JSONDecoder().decode(StatusFile.self, from: data))?.snapshot
    }

    private func startAgent() throws -> (Process, Pipe, Pipe) {
        let process = Process()
        process.executableURL = try EdgeProcess.executable()
        process.arguments = ["run", "--config", config.path]
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("EDGE_") && $0.key != "NOTIFY_SOCKET" }
        environment["EDGE_TCTI"] = "swtpm:path=\(directory.path)/no-tpm.sock"
        process.environment = environment
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return (process, output, errors)
    }

    private func waitForExit(_ process: Process, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        return !process.isRunning
    }
}
