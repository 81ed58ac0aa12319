import Foundation

/// A `swtpm socket --tpm2` process on a Unix socket in its own temporary directory, for tests.
///
/// The swtpm TCTI derives the control-socket path from the data socket ("<path>.ctrl") and fails
/// to initialise without it, so both are created side by side. No `swtpm_setup` is needed:
/// `--flags not-need-init,startup-clear` makes the TPM usable at once (HW-6).
public final class Swtpm {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public let directory: URL
    public var stateDirectory: URL { directory.appendingPathComponent("state") }
    public var socketPath: String { directory.appendingPathComponent("tpm.sock").path }
    public var tcti: String { "swtpm:path=\(socketPath)" }

    private var process: Process?

    /// Creates a fresh state directory (a new TPM with new seeds) and starts swtpm on it.
    public init() throws {
        // Short paths under /tmp: a Unix socket path must fit in sun_path (108 bytes).
        let template = FileManager.default.temporaryDirectory.appendingPathComponent("etpm-XXXXXX").path
        var buffer = Array(template.utf8CString)
        let made = buffer.withUnsafeMutableBufferPointer { pointer -> UnsafeMutablePointer<CChar>? in
            guard let base = pointer.baseAddress else { return nil }
            return mkdtemp(base)
        }
        guard let made else {
            throw Failure(description: "mkdtemp failed for \(template)")
        }
        directory = URL(fileURLWithPath: String(cString: made))
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("state"),
                                                withIntermediateDirectories: true)
        try start()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Starts swtpm on the existing state directory (so a restart keeps the TPM's seeds and NV).
    public func start() throws {
        guard process == nil else { return }
        let executable = try Self.locate()
        let process = Process()
        process.executableURL = executable
        process.arguments = [
            "socket", "--tpm2",
            "--server", "type=unixio,path=\(socketPath)",
            "--ctrl", "type=unixio,path=\(socketPath).ctrl",
            "--tpmstate", "dir=\(stateDirectory.path)",
            "--flags", "not-need-init,startup-clear",
        ]
        // swtpm reports every client disconnect on stderr; that is noise in test output.
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        try waitUntilListening()
    }

    /// SIGTERM, then wait (SIGKILL after 2 s); removes the sockets so a restart waits for new ones.
    public func stop() {
        guard let process else { return }
        self.process = nil
        if process.isRunning {
            process.terminate()
            let deadline = Date().addingTimeInterval(2)
            while process.isRunning && Date() < deadline { usleep(5_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: socketPath)
        try? FileManager.default.removeItem(atPath: socketPath + ".ctrl")
    }

    /// Fails loudly when swtpm is missing: CI installs it, so a silent skip would hide a broken setup.
    private static func locate() throws -> URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent("swtpm")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw Failure(description: "swtpm is not on PATH (\(path)); install it (Debian: apt-get install swtpm) to run EdgeTPMTests")
    }

    /// Polls until both sockets accept a connection (swtpm is up in tens of ms; 5 s is generous).
    private func waitUntilListening() throws {
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            if let process, !process.isRunning {
                throw Failure(description: "swtpm exited with status \(process.terminationStatus) during startup")
            }
            if Self.accepts(socketPath) && Self.accepts(socketPath + ".ctrl") { return }
            usleep(5_000)
        }
        throw Failure(description: "swtpm did not listen on \(socketPath) within 5 s")
    }

    private static func accepts(_ path: String) -> Bool {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in raw.copyBytes(from: bytes) }
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
    }
}
