import EdgeTestSupport
import Foundation
import FoundationNetworking
import XCTest

/// A full disk and a read-only one under `edge run` (issue #30 item 1, AGT-11): the station's
/// state on a small tmpfs of the test's own (`PrivateMounts`: user and mount namespaces, so no
/// root is needed), the subjects (`edge run`, `edge status`, `edge sync enqueue`, `edge vault`)
/// run inside the namespace as subprocesses, the stand-in outside as the backend.
///
/// Each test shows: a write the disk refuses names the file and the cause in words; status, the
/// kiosk and /metrics say so while it lasts; nothing committed is lost (every recorded scan event
/// is applied exactly once at the end); and everything resumes, without a restart, when the space
/// or the writable disk comes back.
///
/// Without user namespaces the tests skip, saying why, except under CI=true, where they fail:
/// CI runs them (`.ci/run` as root in its container; an unprivileged user works the same).
final class StorageFaultTests: XCTestCase {
    private var directory: URL!
    private var root: String { directory.path }
    private var config: String { root + "/edge.json" }
    private var state: String { root + "/state" }
    private var vault: String { state + "/vault" }
    private var log: String { root + "/agent.log" }

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("edge-storage-\(UUID().uuidString)")
        for sub in ["state", "db"] {
            try FileManager.default.createDirectory(at: directory.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
    }

    override func tearDownWithError() throws {
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    /// The disk holding the whole state (database, status file, vault, photos) fills up.
    func testFullDiskIsReportedLosesNothingAndEverythingResumesWhenSpaceReturns() async throws {
        let token = "storage-\(UUID().uuidString)"
        let standin = try StandinProcess(token: token)
        let mounts = try privateMounts([(state, "24m")])
        try writeConfiguration(standin, database: nil)
        try putSecret("sync.token", token, mounts)
        try putSecret("kept.secret", "before the disk filled", mounts)
        let agent = try startAgent(mounts)
        defer { stop(agent) }

        try await eventually("scan events applied") { try self.applied(standin).count >= 2 }
        let before = try status(mounts)
        XCTAssertEqual(storage(before)["state"] as? String, "ok", "\(before)")

        let filled = try mounts.fill(state)
        XCTAssertGreaterThan(filled, 0)
        let full = "the disk holding \(state) is full: 0 bytes free"

        // Status, measured by `edge status` itself: the agent cannot write its status file now.
        try await eventually("edge status says the disk is full") {
            let status = try self.status(mounts)
            return self.storage(status)["state"] as? String == "failed" && (status["missing"] as? [String] ?? []).contains { $0.contains(full) }
        }
        let status = try status(mounts)
        try PythonCheck.validate(json: try JSONSerialization.data(withJSONObject: status), schema: PackageFiles.path("models/station-status.schema.json"))
        let places = storage(status)["places"] as? [[String: Any]] ?? []
        for holds in ["database", "status file", "vault"] {
            let place = places.first { $0["holds"] as? String == holds }
            XCTAssertEqual(place?["state"] as? String, "failed", holds)
            XCTAssertEqual(place?["cause"] as? String, "full", holds)
            XCTAssertEqual(place?["free_bytes"] as? Int, 0, holds)
        }

        // The kiosk (the running agent's own view, with the writes it saw fail) and /metrics.
        let ui = try XCTUnwrap((before["agent"] as? [String: Any])?["ui"] as? String)
        let metrics = try XCTUnwrap((before["agent"] as? [String: Any])?["metrics"] as? String)
        try await eventually("the full disk and the camera's failed writes in /metrics") {
            let samples = try PythonCheck.prometheusSamples(try self.get("http://\(metrics)/metrics"))
            return (samples[#"edge_storage_write_failures_total{cause="full",holds="database"}"#] ?? 0) >= 5
                && samples[#"edge_storage_failed{holds="database",path="\#(self.state)"}"#] == 1
        }
        let samples = try PythonCheck.prometheusSamples(try get("http://\(metrics)/metrics"))
        XCTAssertEqual(samples[#"edge_storage_free_bytes{holds="database",path="\#(state)"}"#], 0)
        XCTAssertEqual(samples[#"edge_storage_failed{holds="database",path="\#(state)"}"#], 1)
        XCTAssertEqual(samples[#"edge_storage_failed{holds="vault",path="\#(vault)"}"#], 1)
        XCTAssertEqual(samples[#"edge_storage_read_only{holds="status file",path="\#(state)"}"#], 0)
        let kiosk = try JSONSerialization.jsonObject(with: try get(ui + "/api/v1/status")) as? [String: Any] ?? [:]
        let kioskPlaces = storage(kiosk)["places"] as? [[String: Any]] ?? []
        let database = kioskPlaces.first { $0["holds"] as? String == "database" }
        XCTAssertEqual(storage(kiosk)["state"] as? String, "failed")
        XCTAssertTrue((database?["last_error"] as? String)?.contains("could not record a scan event: \(full)") == true, "\(kiosk)")
        let page = String(decoding: try get(ui + "/status"), as: UTF8.self)
        XCTAssertTrue(page.contains(full), "the kiosk's status page does not show the full disk")

        // A message queued by hand: refused with the database, the cause, and nothing queued.
        let enqueue = try edge(["sync", "enqueue", "manual", "--json-file", "-", "--config", config], mounts, input: #"{"by":"hand"}"#)
        XCTAssertEqual(enqueue.status, 2, enqueue.stderr)
        XCTAssertTrue(enqueue.stderr.contains("The sync database \(state)/edge.sqlite could not queue the message: \(full)."), enqueue.stderr)
        XCTAssertFalse(enqueue.stderr.contains("SQLite error"), enqueue.stderr)

        // A vault write on the full disk fails with the cause and leaves the secret it would
        // have replaced, and every other one, readable.
        let put = try edge(["vault", "put", "kept.secret", "--dir", vault, "--key-dir", root + "/keys", "--backend", "keyfile"], mounts, input: "after the disk filled")
        XCTAssertNotEqual(put.status, 0)
        XCTAssertTrue(put.stderr.contains("cannot write \(vault)/secrets/kept.secret.vault: the disk holding \(vault)/secrets is full"), put.stderr)
        XCTAssertEqual(try secret("kept.secret", mounts), "before the disk filled")
        XCTAssertEqual(try secret("sync.token", mounts), token)

        // The puller's page cannot commit either: its error names the cause (asked every second).
        try await eventually("the pull failure in the log, worded") {
            let text = (try? String(contentsOfFile: self.log, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").contains {
                $0.contains("event=sync.pull_failed") && $0.contains("could not apply pulled changes: the disk holding \(self.state) is full")
            }
        }

        // Space returns: everything resumes without a restart.
        let appliedWhileFull = try applied(standin).count
        try mounts.unfill(state)
        try await eventually("edge status says storage is ok again") {
            let status = try self.status(mounts)
            return self.storage(status)["state"] as? String == "ok" && (self.storage(status)["places"] as? [[String: Any]] ?? []).allSatisfy { $0["last_error"] == nil }
        }
        try await eventually("new scan events recorded and sent") { try self.applied(standin).count > appliedWhileFull + 2 }
        try await eventually("the status file written again") {
            let file = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: mounts.outside(self.state + "/agent-status.json")))) as? [String: Any]
            return (file?["snapshot"] as? [String: Any])?["storageFailures"] == nil && (file?["updatedAt"] as? Double ?? 0) > Date().timeIntervalSince1970 - 3
        }
        XCTAssertEqual(try edge(["sync", "enqueue", "manual", "--json-file", "-", "--config", config], mounts, input: #"{"by":"hand"}"#).status, 0)
        XCTAssertEqual(try edge(["vault", "put", "kept.secret", "--dir", vault, "--key-dir", root + "/keys", "--backend", "keyfile"], mounts, input: "after the space returned").status, 0)
        XCTAssertEqual(try secret("kept.secret", mounts), "after the space returned")

        stop(agent)
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        // One line when recording started failing and one when it recovered, not one per frame.
        XCTAssertEqual(lines.filter { $0.contains("event=scan.store_failed") }.count, 1, lines.filter { $0.contains("store") }.joined(separator: "\n"))
        XCTAssertEqual(lines.filter { $0.contains("event=scan.store_recovered") }.count, 1)
        XCTAssertTrue(lines.contains { $0.contains("event=storage.failed") && $0.contains(full) })
        XCTAssertTrue(lines.contains { $0.contains("event=storage.ok") })
        try assertNothingLost(standin, mounts, database: state + "/edge.sqlite", manual: 1)
    }

    /// The disk holding the status file and the vault becomes read-only while the agent runs.
    /// The database is on a disk of its own here: the kernel refuses to make a mount read-only
    /// while a file on it is open for writing (EBUSY), and the agent keeps its database open; a
    /// database on a read-only disk is shown with `edge sync enqueue` on one the agent does not
    /// hold.
    func testReadOnlyDiskIsReportedSecretsStayReadableAndWritesResumeWhenWritable() async throws {
        let token = "storage-ro-\(UUID().uuidString)"
        let standin = try StandinProcess(token: token)
        let mounts = try privateMounts([(state, "24m"), (root + "/db", "24m")])
        try writeConfiguration(standin, database: "db/edge.sqlite")
        try putSecret("sync.token", token, mounts)
        let spare = state + "/spare.sqlite"
        XCTAssertEqual(try edge(["sync", "enqueue", "spare", "--json-file", "-", "--database", spare], mounts, input: #"{"n":1}"#).status, 0)
        let agent = try startAgent(mounts)
        defer { stop(agent) }
        try await eventually("scan events applied") { try self.applied(standin).count >= 2 }
        let metrics = try XCTUnwrap((try status(mounts)["agent"] as? [String: Any])?["metrics"] as? String)

        try mounts.remount(state, readOnly: true)
        let readOnly = "\(state) is on a read-only file system"
        try await eventually("edge status says the disk is read-only") {
            let status = try self.status(mounts)
            return self.storage(status)["state"] as? String == "failed" && (status["missing"] as? [String] ?? []).contains { $0.contains(readOnly) }
        }
        let places = storage(try status(mounts))["places"] as? [[String: Any]] ?? []
        XCTAssertEqual(places.first { $0["holds"] as? String == "status file" }?["cause"] as? String, "read-only")
        XCTAssertEqual(places.first { $0["holds"] as? String == "database" }?["state"] as? String, "ok")
        try await eventually("the read-only disk and the status file's failed write in /metrics") {
            let samples = try PythonCheck.prometheusSamples(try self.get("http://\(metrics)/metrics"))
            return (samples[#"edge_storage_write_failures_total{cause="read-only",holds="status file"}"#] ?? 0) >= 1
                && samples[#"edge_storage_read_only{holds="vault",path="\#(self.vault)"}"#] == 1
        }
        let samples = try PythonCheck.prometheusSamples(try get("http://\(metrics)/metrics"))
        XCTAssertEqual(samples[#"edge_storage_read_only{holds="database",path="\#(root)/db"}"#], 0)
        XCTAssertEqual(samples[#"edge_storage_failed{holds="status file",path="\#(state)"}"#], 1)

        let enqueue = try edge(["sync", "enqueue", "spare", "--json-file", "-", "--database", spare], mounts, input: #"{"n":2}"#)
        XCTAssertEqual(enqueue.status, 2, enqueue.stderr)
        XCTAssertTrue(enqueue.stderr.contains(spare) && enqueue.stderr.contains(readOnly), enqueue.stderr)
        let put = try edge(["vault", "put", "sync.token", "--dir", vault, "--key-dir", root + "/keys", "--backend", "keyfile"], mounts, input: "another token")
        XCTAssertNotEqual(put.status, 0)
        XCTAssertTrue(put.stderr.contains("cannot write \(vault)/secrets/sync.token.vault: \(vault)/secrets is on a read-only file system"), put.stderr)
        // The vault stays readable on the read-only disk: the token is read and sending goes on.
        XCTAssertEqual(try secret("sync.token", mounts), token)
        let appliedWhileReadOnly = try applied(standin).count
        try await eventually("scan events still sent with the vault read-only") { try self.applied(standin).count > appliedWhileReadOnly + 2 }

        try mounts.remount(state, readOnly: false)
        try await eventually("edge status says storage is ok again") { self.storage(try self.status(mounts))["state"] as? String == "ok" }
        try await eventually("the status file written again") {
            let file = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: mounts.outside(self.state + "/agent-status.json")))) as? [String: Any]
            return (file?["snapshot"] as? [String: Any])?["storageFailures"] == nil && (file?["updatedAt"] as? Double ?? 0) > Date().timeIntervalSince1970 - 3
        }
        XCTAssertEqual(try edge(["sync", "enqueue", "spare", "--json-file", "-", "--database", spare], mounts, input: #"{"n":3}"#).status, 0)
        XCTAssertEqual(try edge(["vault", "put", "other.secret", "--dir", vault, "--key-dir", root + "/keys", "--backend", "keyfile"], mounts, input: "writable again").status, 0)

        stop(agent)
        XCTAssertEqual(try mounts.run(["sqlite3", spare, "SELECT COUNT(*) FROM outbox"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines), "2")
        try assertNothingLost(standin, mounts, database: root + "/db/edge.sqlite", manual: 0)
    }

    /// `edge sync enqueue` with a database in a directory that does not exist says so.
    func testEnqueueIntoAMissingDirectoryNamesIt() throws {
        let missing = root + "/no-such-directory/deeper"
        let outcome = try EdgeProcess.run(["sync", "enqueue", "s", "--json-file", "-", "--database", missing + "/edge.sqlite"], input: Data(#"{"a":1}"#.utf8))
        XCTAssertEqual(outcome.status, 2, outcome.stderr)
        XCTAssertEqual(outcome.stderr, "edge: Could not create the sync database \(missing)/edge.sqlite: the directory \(missing) does not exist.\n")
    }

    // MARK: helpers

    /// The namespaces the full and read-only tests need: a skip saying why, a failure under CI.
    private func privateMounts(_ mounts: [(directory: String, size: String)]) throws -> PrivateMounts {
        if let reason = PrivateMounts.unavailable() {
            if ProcessInfo.processInfo.environment["CI"] == "true" { throw SetupFailure(reason) }
            throw XCTSkip(reason)
        }
        return try PrivateMounts(mounts)
    }

    /// A station on `state` with a camera replaying two labels 10 times a second, every read a
    /// scan event (repeat gap 0.2 s), the stand-in as its backend, metrics and the kiosk on
    /// loopback. `database`: relative to the configuration, or nil for `<state>/edge.sqlite`.
    private func writeConfiguration(_ standin: StandinProcess, database: String?) throws {
        let samples = EdgeProcess.samples.path
        let text = """
            {"sync": {"base_url": "\(standin.baseURL)", "connect_timeout": 2, "total_timeout": 4\(database.map { #", "database": "\#($0)""# } ?? "")},
             "station": {"name": "storage-test", "state_dir": "state", "vault_dir": "state/vault", "vault_key_dir": "keys", "vault_backend": "keyfile",
                         "repeat_gap": 0.2, "pull_interval": 1, "metrics": "127.0.0.1:0",
                         "cameras": [{"name": "dock", "device": "replay:\(samples)/po-code128.png,\(samples)/material.png", "fps": 10}]},
             "ui": {"listen": "127.0.0.1:0"}}
            """
        try Data(text.utf8).write(to: URL(fileURLWithPath: config))
    }

    private var environment: [String: String] {
        ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("EDGE_") && $0.key != "NOTIFY_SOCKET" }
    }

    private func edge(_ arguments: [String], _ mounts: PrivateMounts, input: String? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
        try mounts.run([try EdgeProcess.executable().path] + arguments, input: input.map { Data($0.utf8) }, environment: environment)
    }

    private func putSecret(_ name: String, _ value: String, _ mounts: PrivateMounts) throws {
        let put = try edge(["vault", "put", name, "--dir", vault, "--key-dir", root + "/keys", "--backend", "keyfile"], mounts, input: value)
        guard put.status == 0 else { throw SetupFailure("edge vault put \(name): \(put.stderr)") }
    }

    /// The secret's value, compared by the test and never printed.
    private func secret(_ name: String, _ mounts: PrivateMounts) throws -> String? {
        let get = try edge(["vault", "get", name, "--dir", vault, "--key-dir", root + "/keys", "--backend", "keyfile"], mounts)
        return get.status == 0 ? get.stdout.trimmingCharacters(in: .newlines) : nil
    }

    /// `edge run` inside the namespace, its log in a file on the test's own disk (not the full one).
    private func startAgent(_ mounts: PrivateMounts) throws -> Process {
        FileManager.default.createFile(atPath: log, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = mounts.command([try EdgeProcess.executable().path, "run", "--config", config])
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    private func stop(_ agent: Process) {
        guard agent.isRunning else { return }
        kill(agent.processIdentifier, SIGTERM)
        agent.waitUntilExit()
    }

    private func status(_ mounts: PrivateMounts) throws -> [String: Any] {
        let outcome = try edge(["status", "--json", "--config", config], mounts)
        guard let document = try? JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any] else {
            throw SetupFailure("edge status --json printed no document: \(outcome.stdout) \(outcome.stderr)")
        }
        return document
    }

    private func storage(_ status: [String: Any]) -> [String: Any] { status["storage"] as? [String: Any] ?? [:] }

    private func applied(_ standin: StandinProcess) throws -> [[String: Any]] {
        let data = try standin.control("GET", "/_standin/applied")
        return (try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []).filter { ($0["path"] as? String) == "/api/sync/push" }
    }

    /// Nothing committed was lost and nothing sent twice (the agent stopped): every scan event
    /// recorded for sync, and each message queued by hand, is on the stand-in once or still queued.
    private func assertNothingLost(_ standin: StandinProcess, _ mounts: PrivateMounts, database: String, manual: Int) throws {
        func scalar(_ sql: String) throws -> Int {
            let result = try mounts.run(["sqlite3", database, sql])
            guard result.status == 0, let value = Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw SetupFailure("sqlite3 \(database) \(sql): \(result.stderr)")
            }
            return value
        }
        let synced = try scalar("SELECT COUNT(*) FROM scan_events WHERE action = 'sync'")
        let queued = try scalar("SELECT COUNT(*) FROM outbox")
        let records = try applied(standin)
        XCTAssertGreaterThan(synced, 4)
        XCTAssertEqual(records.count + queued, synced + manual, "applied \(records.count) + queued \(queued) != recorded \(synced) + \(manual) by hand")
        XCTAssertTrue(records.allSatisfy { ($0["applications"] as? Int) == 1 }, "an entry was applied twice")
    }

    private func get(_ url: String) throws -> Data {
        guard let address = URL(string: url) else { throw SetupFailure("bad URL \(url)") }
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: (Data?, URLResponse?, (any Error)?) = (nil, nil, nil)
        URLSession.shared.dataTask(with: address) { data, response, error in
            result = (data, response, error)
            done.signal()
        }.resume()
        done.wait()
        if let error = result.2 { throw error }
        guard (result.1 as? HTTPURLResponse)?.statusCode == 200, let data = result.0 else {
            throw SetupFailure("GET \(url): \((result.1 as? HTTPURLResponse)?.statusCode ?? 0)")
        }
        return data
    }
}
