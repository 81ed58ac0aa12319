import EdgeCore
import Foundation
import Glibc

/// Small file systems of a test's own (issue #30 item 1): tmpfs mounts of a given size over
/// directories, in a user and mount namespace (`unshare -Urm`), so a test fills a disk or makes
/// it read-only without root and without touching the machine's disks.
///
/// Decision: a keeper process (`sleep`) holds the namespaces; the subjects (the `edge` binary:
/// `edge run`, `edge status`, `edge sync enqueue`, `edge vault`) run inside them through
/// `nsenter` (`command`), and the test reaches the mounted files through the keeper's root,
/// `/proc/<keeper>/root/...` (`outside`). A user namespace lets an unprivileged user mount tmpfs
/// with `size=` and bind-remount it read-only (a superblock remount is refused there: the tmpfs
/// carries uid= and gid= options the namespace does not map). No network namespace: the agent
/// inside reaches the stand-in on 127.0.0.1 and the test reaches its kiosk and /metrics.
public final class PrivateMounts {
    public let keeper: Process

    /// nil when user and mount namespaces work here (`unshare -Urm` can mount a sized tmpfs);
    /// otherwise why not.
    public static func unavailable() -> String? {
        for tool in ["unshare", "nsenter", "mount"] where !Command.exists(tool) {
            return "\(tool) is not installed (util-linux / mount)"
        }
        let probe = FileManager.default.temporaryDirectory.appendingPathComponent("edge-mount-probe-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: probe) }
        do {
            try FileManager.default.createDirectory(at: probe, withIntermediateDirectories: true)
            try Command.run(["unshare", "-Urm", "sh", "-c", #"mount -t tmpfs -o size=1m tmpfs "$1" && mount -o remount,bind,ro "$1""#, "sh", probe.path])
            return nil
        } catch {
            return "unshare -Urm cannot mount a tmpfs here (user namespaces disabled or blocked): \(error)"
        }
    }

    /// Mounts a tmpfs of `size` (as mount(8) takes it: "32m") over each directory, which must
    /// exist; returns once they are mounted.
    public init(_ mounts: [(directory: String, size: String)]) throws {
        var script = ""
        for (index, mount) in mounts.enumerated() {
            script += #"mount -t tmpfs -o size=\#(mount.size),mode=0700 tmpfs "$\#(index + 1)" && "#
        }
        script += "echo mounted && exec sleep 100000"
        keeper = Process()
        keeper.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        keeper.arguments = ["unshare", "-Urm", "sh", "-c", script, "sh"] + mounts.map(\.directory)
        let out = Pipe()
        let errors = Pipe()
        keeper.standardOutput = out
        keeper.standardError = errors
        keeper.standardInput = FileHandle.nullDevice
        try keeper.run()
        // unshare and sh exec in place: the keeper's pid is the namespaces' holder.
        let banner = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        guard banner.contains("mounted") else {
            keeper.waitUntilExit()
            throw SetupFailure("unshare -Urm could not mount the test's tmpfs: \(String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))")
        }
    }

    deinit {
        if keeper.isRunning {
            keeper.terminate()
            keeper.waitUntilExit()
        }
    }

    /// `path` (inside the namespace) as the test process reaches it: through the keeper's root.
    public func outside(_ path: String) -> String { "/proc/\(keeper.processIdentifier)/root" + path }

    /// The argv running `arguments` inside the namespaces (`arguments[0]` a path or a name on PATH).
    public func command(_ arguments: [String]) -> [String] {
        ["nsenter", "--target", String(keeper.processIdentifier), "--user", "--mount", "--preserve-credentials"] + arguments
    }

    /// Runs `arguments` inside the namespaces; its exit status and output.
    public func run(_ arguments: [String], input: Data? = nil, environment: [String: String]? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
        let outcome = try Command.capture(command(arguments), input: input, environment: environment)
        return (outcome.status, String(decoding: outcome.stdout, as: UTF8.self), String(decoding: outcome.stderr, as: UTF8.self))
    }

    /// Fills the file system holding `directory` with `<directory>/filler` until it refuses
    /// (ENOSPC); returns the bytes written.
    @discardableResult
    public func fill(_ directory: String) throws -> Int {
        let path = outside(directory + "/filler")
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SetupFailure("cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let chunk = [UInt8](repeating: 0x5A, count: 64 * 1024)
        var total = 0
        var size = chunk.count
        while size > 0 {
            let n = chunk.withUnsafeBytes { write(fd, $0.baseAddress, size) }
            if n > 0 {
                total += n
            } else if n < 0 && errno == ENOSPC {
                size /= 2  // the last pages, down to the byte
            } else if n < 0 && errno != EINTR {
                throw SetupFailure("writing \(path): \(String(cString: strerror(errno)))")
            }
        }
        return total
    }

    /// Removes the filler: the space comes back.
    public func unfill(_ directory: String) throws {
        guard unlink(outside(directory + "/filler")) == 0 else { throw SetupFailure("cannot remove the filler: \(String(cString: strerror(errno)))") }
    }

    /// Makes the mount at `directory` read-only, or writable again (a bind remount: per mount,
    /// what an unprivileged namespace may change). The kernel refuses (EBUSY) while a file there
    /// is open for writing.
    public func remount(_ directory: String, readOnly: Bool) throws {
        let result = try run(["mount", "-o", "remount,bind,\(readOnly ? "ro" : "rw")", directory])
        guard result.status == 0 else { throw SetupFailure("mount -o remount,bind,\(readOnly ? "ro" : "rw") \(directory): \(result.stderr)") }
    }
}
