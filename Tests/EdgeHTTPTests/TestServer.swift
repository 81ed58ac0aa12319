import EdgeTestSupport
import Foundation

/// `Servers/test_server.py` as a subprocess on 127.0.0.1 and an ephemeral port (it prints the
/// port). Its stdin is a pipe: when this object (or the test process) goes away the server sees
/// EOF and exits, so no server outlives the tests.
final class TestServer {
    struct Failure: Error, CustomStringConvertible { let description: String }

    let port: Int
    let scheme: String
    private let process: Process
    private let stdin: Pipe

    /// Plain HTTP, or HTTPS with `certificates`' server certificate.
    init(tls certificates: TestCertificates? = nil) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Servers/test_server.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script] + (certificates.map { ["--tls", $0.serverCertificate, $0.serverKey] } ?? [])
        let stdout = Pipe()
        let stdin = Pipe()
        process.standardOutput = stdout
        process.standardInput = stdin
        try process.run()
        self.process = process
        self.stdin = stdin
        scheme = certificates == nil ? "http" : "https"
        // The first line is the port, printed once the socket listens.
        var line = Data()
        while !line.contains(0x0A) {
            let chunk = stdout.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        guard let text = String(data: line, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines),
              let port = Int(text) else {
            process.terminate()
            throw Failure(description: "test_server.py did not print a port (exit status \(process.isRunning ? -1 : process.terminationStatus))")
        }
        self.port = port
    }

    deinit {
        try? stdin.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    /// `http(s)://127.0.0.1:PORT` + `path`.
    func url(_ path: String) -> String {
        "\(scheme)://127.0.0.1:\(port)\(path)"
    }
}
