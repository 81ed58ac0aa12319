import Foundation
import XCTest

/// Issue #16, seen from outside the process: the commands that hold secrets are non-dumpable,
/// and `vault put` refuses a stdin it cannot read whole.
final class SecretProcessTests: XCTestCase {
    private var dir = ""

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("edge-secret-process-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// Before the fix a read error ended the read quietly and the bytes read so far (here none)
    /// were stored as the secret, exit 0. Stdin is a directory: read(2) fails with EISDIR.
    func testVaultPutWithAFailingStdinExitsNonZeroAndStoresNothing() throws {
        let vault = dir + "/vault"
        let edge = try EdgeProcess.executable()
        let put = try EdgeProcess.run(executable: URL(fileURLWithPath: "/bin/sh"),
                                      ["-c", #"exec "$0" vault put db.password --dir "$1" --backend keyfile < "$2""#, edge.path, vault, dir])
        XCTAssertNotEqual(put.status, 0, put.stdout + put.stderr)
        XCTAssertTrue(put.stderr.contains("cannot read stdin"), put.stderr)
        let get = try EdgeProcess.run(["vault", "get", "db.password", "--dir", vault, "--backend", "keyfile"])
        XCTAssertNotEqual(get.status, 0, "a secret was stored from a failed read")
        let status = try EdgeProcess.run(["vault", "status", "--json", "--dir", vault, "--backend", "keyfile"])
        XCTAssertFalse(status.stdout.contains("db.password"), status.stdout)
    }

    /// A non-dumpable process's /proc/<pid>/ files belong to root (the kernel's task_dump_owner), so
    /// an unprivileged `edge sync enqueue` (a `sync` command, which may hold the sync token) is
    /// observed from outside. Root runs it as nobody through setpriv; the event awaited is the
    /// child consuming stdin (a write larger than the pipe returns only then), which it does
    /// after the PR_SET_DUMPABLE call at the top of main.
    func testSecretHoldingCommandsAreNotDumpable() throws {
        let edge = try EdgeProcess.executable()
        let process = Process()
        let childArguments = [edge.path, "sync", "enqueue", "stream-a", "--kind", "scan", "--json-file", "-", "--config", dir + "/absent.json"]
        if getuid() == 0 {
            try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: dir)
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid", "65534", "--regid", "65534", "--clear-groups", "--"] + childArguments
        } else {
            process.executableURL = edge
            process.arguments = Array(childArguments.dropFirst())
        }
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
        // 128 KiB: twice a pipe's buffer, so this returns only once the child is reading.
        input.fileHandleForWriting.write(Data(repeating: UInt8(ascii: " "), count: 128 * 1024))
        XCTAssertTrue(process.isRunning, "the child stops only at end of input")
        var info = stat()
        XCTAssertEqual(stat("/proc/\(process.processIdentifier)/status", &info), 0)
        XCTAssertEqual(info.st_uid, 0, "/proc/<pid>/status of a non-root edge sync belongs to its user: the process is dumpable")
        let status = try String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)
        XCTAssertTrue(status.contains("Name:\tedge"), status)
        XCTAssertFalse(status.split(separator: "\n").contains { $0.hasPrefix("Uid:\t0\t") }, "the child must not run as root")
    }
}
