import Foundation
import Glibc
import XCTest

/// VLT-9 / issue #16 item 2 with real processes: several `edge vault` commands on one vault at
/// once lose nothing, and an unprivileged owner (the shipped units run edge as one) really
/// overwrites the 0400 key file it destroys.
final class VaultConcurrencyTests: XCTestCase {
    private var root = ""

    override func setUpWithError() throws {
        var template = Array("/tmp/edge-vault-procs-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buf in buf.baseAddress.flatMap { mkdtemp($0) } }
        root = String(cString: try XCTUnwrap(made))
    }

    override func tearDownWithError() throws {
        _ = system("chmod -R u+rwX '\(root)' 2>/dev/null; rm -rf '\(root)'")
    }

    /// A started `edge` (optionally through a wrapper such as setpriv), collected by `finish`.
    private struct Running {
        let process: Process
        let out: Pipe
        let err: Pipe
        let what: String

        func finish() -> EdgeProcess.Outcome {
            let outData = out.fileHandleForReading.readDataToEndOfFile()
            let errData = err.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return EdgeProcess.Outcome(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                                       stderr: String(decoding: errData, as: UTF8.self))
        }
    }

    private func start(_ arguments: [String], input: String? = nil, wrapper: [String] = []) throws -> Running {
        let exe = try EdgeProcess.executable()
        let process = Process()
        if let program = wrapper.first {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = Array(wrapper.dropFirst()) + [exe.path] + arguments
        } else {
            process.executableURL = exe
            process.arguments = arguments
        }
        var env = ProcessInfo.processInfo.environment
        env["EDGE_CONFIG"] = nil
        env["EDGE_VAULT_KEY_DIR"] = nil
        env["EDGE_TCTI"] = "swtpm:path=\(root)/no-tpm.sock"
        process.environment = env
        process.currentDirectoryURL = URL(fileURLWithPath: root)
        let out = Pipe(), err = Pipe(), inPipe = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input == nil ? FileHandle.nullDevice : inPipe
        try process.run()
        if let input {
            inPipe.fileHandleForWriting.write(Data(input.utf8))
            try inPipe.fileHandleForWriting.close()
        }
        return Running(process: process, out: out, err: err, what: arguments.prefix(3).joined(separator: " "))
    }

    private func edge(_ arguments: [String], input: String? = nil, wrapper: [String] = []) throws -> EdgeProcess.Outcome {
        try start(arguments, input: input, wrapper: wrapper).finish()
    }

    private func keyCount(_ dir: String) throws -> Int {
        let status = try edge(["vault", "status", "--json", "--dir", dir, "--backend", "keyfile"])
        XCTAssertEqual(status.status, 0, status.stderr)
        let doc = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        return (doc["keys"] as? [Any])?.count ?? -1
    }

    /// Issue #16: three `vault put`s at once on an empty vault lost about two thirds of the
    /// secrets (each created its own device id and key). Here puts, gets and a rotation start
    /// together on an empty vault, then again on a full one, over many trials; every secret
    /// written is read back, every get during the storm sees the old or the new value, and one
    /// key generation is left.
    func testConcurrentPutsGetsAndRotationsLoseNothing() throws {
        let trials = 12, writers = 4
        for trial in 0..<trials {
            let dir = root + "/vault-\(trial)"
            let common = ["--dir", dir, "--backend", "keyfile"]
            // First use: every process races to create the device id and the first key.
            var running: [Running] = []
            for w in 0..<writers {
                running.append(try start(["vault", "put", "s\(w)"] + common, input: "first-\(trial)-\(w)"))
            }
            running.append(try start(["vault", "get", "s0"] + common))
            running.append(try start(["vault", "rotate"] + common))
            for (index, r) in running.enumerated() {
                let outcome = r.finish()
                if index < writers || r.what.hasPrefix("vault rotate") {
                    XCTAssertEqual(outcome.status, 0, "trial \(trial): \(r.what): \(outcome.stderr)")
                } else {
                    // The get may run before s0's put: "no secret" is fine, anything else is not.
                    XCTAssertTrue(outcome.status == 0 ? outcome.stdout == "first-\(trial)-0" : outcome.stderr.contains("no secret named s0"),
                                  "trial \(trial): get s0 status \(outcome.status): \(outcome.stderr)")
                }
            }
            for w in 0..<writers {
                let got = try edge(["vault", "get", "s\(w)"] + common)
                XCTAssertEqual(got.status, 0, "trial \(trial): s\(w) lost: \(got.stderr)")
                XCTAssertTrue(got.stdout == "first-\(trial)-\(w)", "trial \(trial): s\(w) has another value")
            }

            // A full vault: overwrites, reads and two rotations at once.
            running = []
            for w in 0..<writers {
                running.append(try start(["vault", "put", "s\(w)"] + common, input: "second-\(trial)-\(w)"))
                running.append(try start(["vault", "get", "s\(w)"] + common))
            }
            running.append(try start(["vault", "rotate"] + common))
            running.append(try start(["vault", "rotate"] + common))
            for r in running {
                let outcome = r.finish()
                XCTAssertEqual(outcome.status, 0, "trial \(trial): \(r.what): \(outcome.stderr)")
                if r.what.hasPrefix("vault get"), let w = r.what.last.flatMap({ Int(String($0)) }) {
                    XCTAssertTrue(outcome.stdout == "first-\(trial)-\(w)" || outcome.stdout == "second-\(trial)-\(w)",
                                  "trial \(trial): get s\(w) saw neither value")
                }
            }
            for w in 0..<writers {
                let got = try edge(["vault", "get", "s\(w)"] + common)
                XCTAssertEqual(got.status, 0, "trial \(trial): s\(w) lost: \(got.stderr)")
                XCTAssertTrue(got.stdout == "second-\(trial)-\(w)", "trial \(trial): s\(w) lost its overwrite")
            }
            XCTAssertEqual(try keyCount(dir), 1, "trial \(trial): one key generation left")
        }
    }

    /// The shipped units run edge unprivileged: the key file is 0400 and its owner has no write
    /// permission. Rotation, erase and wipe must still overwrite it before unlinking it (they
    /// used to open it write-only, get EACCES, ignore it and only unlink). A descriptor opened
    /// on the key file beforehand shows what became of its bytes after the unlink.
    func testAnUnprivilegedOwnerOverwritesTheKeyFilesItDestroys() throws {
        let setpriv = "/usr/bin/setpriv"
        guard FileManager.default.isExecutableFile(atPath: setpriv) else {
            return XCTFail("setpriv (util-linux) is needed to run edge as an unprivileged user")
        }
        guard geteuid() == 0 else {
            // Already unprivileged: run edge as this user directly.
            return try overwriteChecks(wrapper: [])
        }
        // `nobody` owns a directory of its own for the vault and its keys.
        let home = root + "/nobody"
        XCTAssertEqual(mkdir(home, 0o700), 0)
        XCTAssertEqual(chown(home, 65534, 65534), 0)
        XCTAssertEqual(chmod(root, 0o711), 0)
        try overwriteChecks(wrapper: [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"], in: home)
    }

    private func overwriteChecks(wrapper: [String], in base: String? = nil) throws {
        let base = base ?? root
        let dir = base + "/vault"
        let common = ["--dir", dir, "--backend", "keyfile"]
        let put = try edge(["vault", "put", "access-token"] + common, input: "token-value-1", wrapper: wrapper)
        XCTAssertEqual(put.status, 0, put.stderr)
        XCTAssertEqual(try edge(["vault", "put", "kept"] + common, input: "token-value-2", wrapper: wrapper).status, 0)

        for (step, arguments) in [("rotate", ["vault", "rotate"]), ("erase", ["vault", "erase", "access-token"]), ("wipe", ["vault", "wipe", "--yes"])] {
            let keyDirectory = dir + "-keys"
            let keyName = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: keyDirectory).first { $0.hasSuffix(".key") })
            let keyPath = keyDirectory + "/" + keyName
            var info = stat()
            XCTAssertEqual(lstat(keyPath, &info), 0)
            XCTAssertEqual(info.st_mode & 0o777, 0o400, "\(step): the key file is read-only for its owner")
            if !wrapper.isEmpty { XCTAssertEqual(info.st_uid, 65534, "\(step): nobody owns the key file") }
            let fd = open(keyPath, O_RDONLY | O_CLOEXEC)
            XCTAssertGreaterThanOrEqual(fd, 0)
            defer { close(fd) }
            let before = readKey(fd)
            XCTAssertEqual(before.count, 32)

            let outcome = try edge(arguments + common, wrapper: wrapper)
            XCTAssertEqual(outcome.status, 0, "\(step): \(outcome.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: keyPath), "\(step): the old key file is unlinked")
            let after = readKey(fd)
            XCTAssertEqual(after.count, 32, "\(step): the inode keeps its size")
            XCTAssertNotEqual(after, before, "\(step): the key bytes were overwritten before the unlink")
            if step != "wipe" {
                let kept = try edge(["vault", "get", "kept"] + common, wrapper: wrapper)
                XCTAssertEqual(kept.status, 0, kept.stderr)
                XCTAssertTrue(kept.stdout == "token-value-2", "\(step): kept secret still opens")
            }
        }
    }

    private func readKey(_ fd: Int32) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 64)
        let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        return n >= 0 ? Array(bytes.prefix(n)) : []
    }
}
