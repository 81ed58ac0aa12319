import EdgeTestSupport
import Foundation
import XCTest

final class VaultCommandTests: XCTestCase {
    private var dir = ""
    /// A marker value: .ci/test greps the whole test log for it and fails if any output, message
    /// or log line carries it (VLT-7). Assertions here compare it without printing it.
    private let secret = "edge-test-secret-7d1f0c"

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("edge-vault-cli-\(UUID().uuidString)").path
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: dir)
        try? FileManager.default.removeItem(atPath: dir + "-keys")  // the vault's keys sit next to it
        try? FileManager.default.removeItem(atPath: state)
        try? FileManager.default.removeItem(atPath: state + "-keys")  // the station's keys sit beside its state
        try? FileManager.default.removeItem(atPath: state + ".backup")
    }

    /// A station's state directory, for the tests of the vault in its default place.
    private var state: String { dir + "-state" }

    /// edge on the station whose state directory is `state`, with no --dir: the vault and its
    /// keys where `edge run` has them (StationPaths).
    private func station(_ args: [String], input: String? = nil) throws -> EdgeProcess.Outcome {
        try EdgeProcess.run(args, environment: ["EDGE_STATE_DIR": state, "EDGE_VAULT_DIR": "", "EDGE_VAULT_KEY_DIR": "",
                                                "EDGE_TCTI": "swtpm:path=\(dir)-no-tpm.sock"], input: input.map { Data($0.utf8) })
    }

    /// Runs edge on this test's vault. EDGE_TCTI points at a socket that does not exist, so the
    /// default `auto` backend finds no TPM even on a machine that has one (as a newcomer's does not).
    private func edge(_ args: [String], input: String? = nil) throws -> EdgeProcess.Outcome {
        try EdgeProcess.run(args + ["--dir", dir], environment: ["EDGE_TCTI": "swtpm:path=\(dir)-no-tpm.sock"], input: input.map { Data($0.utf8) })
    }

    func testPutGetStatusRemoveWithNoSecretInOutputOrArguments() throws {
        var everything = ""
        let put = try edge(["vault", "put", "access-token"], input: secret + "\n")
        XCTAssertEqual(put.status, 0, put.stderr)
        let get = try edge(["vault", "get", "access-token"])
        XCTAssertEqual(get.status, 0)
        XCTAssertTrue(get.stdout == secret, "value byte for byte, trailing newline from echo dropped at put")
        let status = try edge(["vault", "status"])
        let json = try edge(["vault", "status", "--json"])
        XCTAssertTrue(status.stdout.contains("access-token") && status.stdout.contains("keyfile"), status.stdout)
        let doc = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(doc["backend"] as? String, "keyfile", "no TPM here: auto falls back to the key file")
        XCTAssertTrue((doc["backend_reason"] as? String ?? "").contains("auto: no TPM"), json.stdout)
        let statusFile = URL(fileURLWithPath: dir + ".status.json")
        try json.stdout.write(to: statusFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: statusFile) }
        XCTAssertEqual(try SchemaValidator.validate(jsonLines: statusFile, against: "models/vault-status.schema.json", wholeFile: true), 1)
        let rm = try edge(["vault", "rm", "access-token"])
        XCTAssertEqual(rm.status, 0)
        let gone = try edge(["vault", "get", "access-token"])
        XCTAssertEqual(gone.status, 1)
        XCTAssertTrue(gone.stderr.contains("no secret named access-token"), gone.stderr)
        for o in [put, status, json, rm, gone] { everything += o.stdout + o.stderr }
        XCTAssertFalse(everything.contains(secret), "a secret value reached CLI output")
        // Nor is it anywhere on disk in clear.
        let files = try FileManager.default.subpathsOfDirectory(atPath: dir)
        for f in files {
            if let data = FileManager.default.contents(atPath: dir + "/" + f) {
                XCTAssertNil(data.range(of: Data(secret.utf8)), f)
            }
        }
    }

    func testDeviceIDIsStableAndUUIDv4() throws {
        let a = try edge(["device-id"]), b = try edge(["device-id"])
        XCTAssertEqual(a.status, 0, a.stderr)
        XCTAssertEqual(a.stdout, b.stdout)
        XCTAssertNotNil(a.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            .range(of: "^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$", options: .regularExpression))
    }

    func testRotateKeepsValuesAndWipeNeedsConfirmation() throws {
        XCTAssertEqual(try edge(["vault", "put", "a"], input: "one").status, 0)
        let rotate = try edge(["vault", "rotate"])
        XCTAssertEqual(rotate.status, 0, rotate.stderr)
        XCTAssertTrue(rotate.stdout.contains("2 secrets rewritten"), rotate.stdout)
        XCTAssertEqual(try edge(["vault", "get", "a"]).stdout, "one")
        XCTAssertEqual(try edge(["vault", "wipe"]).status, 64)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir))
        XCTAssertEqual(try edge(["vault", "wipe", "--yes"]).status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir))
    }

    func testBadNameIsAClearError() throws {
        let out = try edge(["vault", "put", "../etc/passwd"], input: "x")
        XCTAssertEqual(out.status, 1)
        XCTAssertTrue(out.stderr.contains("secret names are"), out.stderr)
    }
}

extension VaultCommandTests {
    /// VLT-3: `edge vault put` killed (SIGKILL) at random moments while replacing a secret leaves
    /// the old or the new value, never a torn file, and the next start cleans up its temp file.
    func testKilledWritesLeaveOldOrNewNeverTorn() throws {
        let exe = try EdgeProcess.executable()
        var current = String(repeating: "0", count: 60_000)
        XCTAssertEqual(try edge(["vault", "put", "big"], input: current).status, 0)
        var killed = 0
        for round in 1...25 {
            let next = String(repeating: String(round % 10), count: 60_000)
            let process = Process()
            process.executableURL = exe
            process.arguments = ["vault", "put", "big", "--dir", dir, "--backend", "keyfile"]
            let input = Pipe()
            process.standardInput = input
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            input.fileHandleForWriting.write(Data(next.utf8))
            try input.fileHandleForWriting.close()
            usleep(UInt32.random(in: 0...12_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let wasKilled = process.terminationReason == .uncaughtSignal
            if wasKilled { killed += 1 }
            let got = try edge(["vault", "get", "big"])
            XCTAssertEqual(got.status, 0, "round \(round): \(got.stderr)")
            XCTAssertTrue(got.stdout == current || got.stdout == next, "round \(round): torn value of \(got.stdout.count) bytes")
            if got.stdout == next { current = next }
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir + "/secrets").filter { $0.contains(".tmp-") }
        XCTAssertEqual(leftovers, [], "stale temp files are removed when the vault is next opened")
        print("killed \(killed) of 25 writers mid-run")
    }
}

extension VaultCommandTests {
    /// VLT-5: `edge vault rotate` killed at random moments loses nothing; the next rotation finishes.
    func testKilledRotationsLoseNothing() throws {
        let exe = try EdgeProcess.executable()
        for i in 0..<6 { XCTAssertEqual(try edge(["vault", "put", "s\(i)"], input: "value-\(i)").status, 0) }
        for round in 1...12 {
            let process = Process()
            process.executableURL = exe
            process.arguments = ["vault", "rotate", "--dir", dir, "--backend", "keyfile"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(UInt32.random(in: 0...15_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            for i in 0..<6 {
                let got = try edge(["vault", "get", "s\(i)"])
                XCTAssertEqual(got.status, 0, "round \(round): \(got.stderr)")
                XCTAssertTrue(got.stdout == "value-\(i)", "round \(round): s\(i) changed")
            }
        }
        let finish = try edge(["vault", "rotate"])
        XCTAssertEqual(finish.status, 0, finish.stderr)
        let status = try edge(["vault", "status", "--json"])
        let doc = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        XCTAssertEqual((doc["keys"] as? [Any])?.count, 1, "after a completed rotation only the new key is left")
    }
}

extension VaultCommandTests {
    /// VLT-6, ENR-10 against an ordinary backup: a copy of the whole state directory taken while
    /// a token was good, restored after the token was erased, cannot open it. The keys live beside
    /// the state directory (`<state>-keys`), so the copy holds none.
    func testARestoredWholeStateBackupCannotOpenErasedSecrets() throws {
        XCTAssertEqual(try station(["vault", "put", "enrollment.1.access-token", "--backend", "keyfile"], input: secret).status, 0)
        XCTAssertEqual(try station(["vault", "put", "sync.token", "--backend", "keyfile"], input: "kept").status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: state + "-keys/current"), "the keys beside the state directory")
        let inState = try FileManager.default.subpathsOfDirectory(atPath: state)
        XCTAssertFalse(inState.contains { $0.hasSuffix(".key") || $0.hasSuffix(".tpm") || $0.hasSuffix("current") }, "no key in the state directory: \(inState)")

        try Command.run(["/bin/cp", "-a", state, state + ".backup"])
        let erase = try station(["vault", "erase", "enrollment.1.access-token", "--backend", "keyfile"])
        XCTAssertEqual(erase.status, 0, erase.stderr)
        XCTAssertEqual(try station(["vault", "get", "sync.token"]).stdout, "kept", "the live vault keeps what was not erased")

        // The whole state directory restored from the backup, as an operator restores one.
        try FileManager.default.removeItem(atPath: state)
        try Command.run(["/bin/cp", "-a", state + ".backup", state])
        let erased = try station(["vault", "get", "enrollment.1.access-token"])
        XCTAssertEqual(erased.status, 1)
        XCTAssertEqual(erased.stdout, "")
        XCTAssertTrue(erased.stderr.contains("is not in this vault"), erased.stderr)
        XCTAssertFalse((erased.stdout + erased.stderr).contains(secret))
        // The price, as the README says: the restored vault opens nothing sealed before the erase.
        XCTAssertEqual(try station(["vault", "get", "sync.token"]).status, 1)
    }

    /// A station upgraded with its keys in the old default (`<state>/vault-keys`): several edge
    /// processes opening the vault at the same moment move the keys beside the state directory
    /// once (the vault lock), say so once, and every one reads the secret.
    func testKeysInTheOldPlaceMoveOnceWhenSeveralProcessesOpenTheVaultAtOnce() throws {
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let old = try EdgeProcess.run(["vault", "put", "sync.token", "--backend", "keyfile", "--dir", state + "/vault", "--key-dir", state + "/vault-keys"],
                                      environment: ["EDGE_TCTI": "swtpm:path=\(dir)-no-tpm.sock"], input: Data("value-before-upgrade".utf8))
        XCTAssertEqual(old.status, 0, old.stderr)

        let exe = try EdgeProcess.executable()
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("EDGE_") }
        environment["EDGE_STATE_DIR"] = state
        environment["EDGE_TCTI"] = "swtpm:path=\(dir)-no-tpm.sock"
        var running: [(Process, Pipe, Pipe)] = []
        for _ in 0..<6 {
            let process = Process()
            process.executableURL = exe
            process.arguments = ["vault", "get", "sync.token", "--backend", "keyfile"]
            process.environment = environment
            let out = Pipe(), err = Pipe()
            process.standardOutput = out
            process.standardError = err
            process.standardInput = FileHandle.nullDevice
            running.append((process, out, err))
        }
        for (process, _, _) in running { try process.run() }
        var moves = 0
        for (process, out, err) in running {
            let value = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0, errors)
            XCTAssertEqual(value, "value-before-upgrade")
            if errors.contains("vault keys moved from \(state)/vault-keys to \(state)-keys") { moves += 1 }
        }
        XCTAssertEqual(moves, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: state + "/vault-keys"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: state + "-keys/current"))
    }
}

