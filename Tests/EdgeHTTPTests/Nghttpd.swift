import EdgeTestSupport
import Foundation
import XCTest

/// Debian's `nghttpd` (nghttp2-server) serving a temporary document root over TLS with the test
/// certificate on 127.0.0.1 only: a real HTTP/2 server. Missing nghttpd fails the test
/// (`.ci/install-deps` installs it; a skip would let CI pass without HTTP/2 tested).
final class Nghttpd {
    let port: Int
    let documentRoot: URL
    private let process: Process

    init(certificates: TestCertificates) throws {
        guard Command.exists("nghttpd") else {
            throw SetupFailure("nghttpd is not installed (Debian: apt-get install nghttp2-server; .ci/install-deps installs it)")
        }
        documentRoot = certificates.directory.appendingPathComponent("htdocs")
        try FileManager.default.createDirectory(at: documentRoot, withIntermediateDirectories: true)
        try Data("hello over h2\n".utf8).write(to: documentRoot.appendingPathComponent("hello.txt"))
        port = try LoopbackPort.unused()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["nghttpd", "--address=127.0.0.1", "--htdocs=\(documentRoot.path)", "--echo-upload",
                             "\(port)", certificates.serverKey, certificates.serverCertificate]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        let deadline = Date().addingTimeInterval(5)
        while !LoopbackPort.accepts(port) {
            guard process.isRunning, Date() < deadline else {
                if process.isRunning { process.terminate() }
                throw TestServer.Failure(description: "nghttpd did not listen on 127.0.0.1:\(port) within 5 s")
            }
            usleep(10_000)
        }
    }

    deinit {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    func url(_ path: String) -> String {
        "https://127.0.0.1:\(port)\(path)"
    }
}
