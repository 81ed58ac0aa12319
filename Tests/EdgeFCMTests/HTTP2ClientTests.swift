@testable import EdgeFCM
@testable import EdgeFCMTransport
import EdgeHTTP
import EdgePush
import EdgeStandin
import EdgeTestSupport
import Foundation
import XCTest

/// Issue #31: FCMTransport's own HTTP/2 client (HTTP2Client, HTTP2StreamRouter) against the FCM
/// stand-in over TLS, and against a TLS server that speaks only HTTP/1.1.
final class HTTP2ClientTests: XCTestCase {
    private var directory: URL?

    override func tearDown() { directory.map { try? FileManager.default.removeItem(at: $0) } }

    /// A signed-in FCM send of one message, as FCMClient makes it.
    private func sendRequest(_ harness: FCMHarness) async throws -> HTTPRequest {
        let (store, directory) = try makePushStore()
        self.directory = directory
        let now = FCMMessageBuilderTests.noon
        let record = try store.accept(try PushNotification(userID: "user-1", type: .kpiAlert, priority: .urgent, title: "KPI",
                                                           body: "Spend over budget", ttlSeconds: 3600, createdAt: now), now: now).record
        let message = try FCMMessageBuilder.message(for: record, token: "device-token-1", badge: 2, now: now)
        let token = try await harness.tokenSource().accessToken()
        return HTTPRequest(method: .post, url: harness.baseURL + "/v1/projects/\(FCMHarness.projectID)/messages:send",
                           headers: [HTTPHeader("Authorization", token.authorization), HTTPHeader("Content-Type", "application/json")],
                           body: message.body)
    }

    private func transport(_ harness: FCMHarness, totalTimeout: Double = 10, maxResponseBytes: Int = 4 * 1024 * 1024) throws -> FCMTransport {
        let transport = try FCMTransport(options: TransportOptions(connectTimeout: 2, totalTimeout: totalTimeout,
                                                                   caFile: harness.certificates?.caCertificate, maxResponseBytes: maxResponseBytes))
        addTeardownBlock { transport.shutdown() }
        return transport
    }

    private func expectError(_ code: TransportErrorCode, _ send: () async throws -> HTTPResponse,
                             file: StaticString = #filePath, line: UInt = #line) async {
        do {
            let response = try await send()
            XCTFail("answered \(response.status), expected \(code)", file: file, line: line)
        } catch let error as TransportError {
            XCTAssertEqual(error.code, code, error.message, file: file, line: line)
        } catch {
            XCTFail("\(error), expected \(code)", file: file, line: line)
        }
    }

    func testAnswersComeWholeOverHTTP2OnOneConnection() async throws {
        let harness = try await FCMHarness(self, tls: true)
        let request = try await sendRequest(harness)
        for _ in 0..<3 {
            let response = try await harness.transport.send(request)
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(response.version, .http2)
            XCTAssertTrue(response.header("Content-Type")?.contains("json") ?? false)
            XCTAssertTrue(String(decoding: response.body, as: UTF8.self).contains("projects/prokure-test/messages/"))
        }
        // A refusal's answer too, with its status and body.
        harness.standin.backend.fcm.add(FCMFault(.invalidPayload))
        let refused = try await harness.transport.send(request)
        XCTAssertEqual(refused.status, 400)
        XCTAssertTrue(String(decoding: refused.body, as: UTF8.self).contains("INVALID_ARGUMENT"))
        // The four sends shared one connection.
        XCTAssertEqual(Set(harness.standin.backend.fcm.received.map(\.connection)).count, 1)
    }

    func testDeadlineEndsASlowAnswerAndTheConnectionServesTheNext() async throws {
        let harness = try await FCMHarness(self, tls: true)
        let request = try await sendRequest(harness)
        let transport = try transport(harness, totalTimeout: 0.3)
        harness.standin.backend.fcm.add(FCMFault(.slow(seconds: 2), times: 1))
        await expectError(.timedOut) { try await transport.send(request) }
        let next = try await transport.send(request)
        XCTAssertEqual(next.status, 200)
    }

    func testCancelledSendEndsAsCancelled() async throws {
        let harness = try await FCMHarness(self, tls: true)
        let request = try await sendRequest(harness)
        harness.standin.backend.fcm.add(FCMFault(.slow(seconds: 30), times: 1))
        let transport = harness.transport
        let send = Task { () async throws -> HTTPResponse in try await transport.send(request) }
        try await eventually("the stand-in has the request") { harness.standin.backend.fcm.received.count == 1 }
        send.cancel()
        await expectError(.cancelled) { try await send.value }
        // Cancelled before it reaches the connection: the same.
        let early = Task { () async throws -> HTTPResponse in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await transport.send(request)
        }
        await expectError(.cancelled) { try await early.value }
    }

    func testAnswerOverTheLimitIsRefusedAndTheConnectionGoesOn() async throws {
        let harness = try await FCMHarness(self, tls: true)
        let request = try await sendRequest(harness)
        let small = try transport(harness, maxResponseBytes: 16)
        await expectError(.responseTooLarge) { try await small.send(request) }
        await expectError(.responseTooLarge) { try await small.send(request) }
        XCTAssertEqual(harness.standin.backend.fcm.received.count, 2)
        XCTAssertEqual(Set(harness.standin.backend.fcm.received.map(\.connection)).count, 1)
    }

    func testUntrustedCertificateFailsAsTLS() async throws {
        let harness = try await FCMHarness(self, tls: true)
        let request = try await sendRequest(harness)
        let untrusting = try FCMTransport(options: TransportOptions(connectTimeout: 2, totalTimeout: 5))
        addTeardownBlock { untrusting.shutdown() }
        await expectError(.tlsFailure) { try await untrusting.send(request) }
        XCTAssertTrue(harness.standin.backend.fcm.received.isEmpty)
    }

    func testRefusedConnectionFailsEveryWaitingRequestOnce() async throws {
        let transport = try FCMTransport(options: TransportOptions(connectTimeout: 2, totalTimeout: 5))
        addTeardownBlock { transport.shutdown() }
        // Port 1 on loopback: nothing listens, the kernel refuses at once.
        let request = HTTPRequest(method: .post, url: "https://127.0.0.1:1/v1/projects/p/messages:send", body: Array("{}".utf8))
        try await withThrowingTaskGroup(of: TransportErrorCode?.self) { group in
            for _ in 0..<5 {
                group.addTask {
                    do {
                        _ = try await transport.send(request)
                        return nil
                    } catch let error as TransportError {
                        return error.code
                    }
                }
            }
            for try await code in group { XCTAssertEqual(code, .couldNotConnect) }
        }
    }

    /// A server whose ALPN offers only http/1.1 (Python's http.server behind its ssl module): the
    /// request is sent again over HTTP/1.1, and so is every later one to that authority.
    func testServerWithoutHTTP2IsAskedOverHTTP1() async throws {
        let certificates = try TestCertificates()
        let script = """
            import http.server, ssl, sys
            class Page(http.server.BaseHTTPRequestHandler):
                protocol_version = "HTTP/1.1"
                def do_GET(self):
                    body = b"http/1.1 only"
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                def log_message(self, *args):
                    pass
            server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(sys.argv[1], sys.argv[2])
            context.set_alpn_protocols(["http/1.1"])
            server.socket = context.wrap_socket(server.socket, server_side=True)
            print(server.server_address[1], flush=True)
            server.serve_forever()
            """
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        server.arguments = ["-c", script, certificates.serverCertificate, certificates.serverKey]
        let output = Pipe()
        server.standardOutput = output
        server.standardError = FileHandle.nullDevice
        try server.run()
        // Foundation reaps it; waitUntilExit would spin a run loop this async test does not run.
        // SIGKILL, not terminate(): spawned from a thread that blocks signals, the child inherits
        // a blocked SIGTERM, and SIGTERM left it running after every run of this test.
        addTeardownBlock { kill(server.processIdentifier, SIGKILL) }
        var banner = ""
        while !banner.contains("\n") {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            banner += String(decoding: chunk, as: UTF8.self)
        }
        let port = try XCTUnwrap(Int(banner.trimmingCharacters(in: .whitespacesAndNewlines)), banner)
        let transport = try FCMTransport(options: TransportOptions(connectTimeout: 2, totalTimeout: 10, caFile: certificates.caCertificate))
        addTeardownBlock { transport.shutdown() }
        for _ in 0..<2 {
            let response = try await transport.send(HTTPRequest(method: .get, url: "https://127.0.0.1:\(port)/"))
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(response.version, .http1_1)
            XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "http/1.1 only")
        }
    }

    func testTargets() throws {
        let plain = try XCTUnwrap(FCMTransport.HTTP2Target("https://fcm.googleapis.com/v1/projects/p/messages:send"))
        XCTAssertEqual(plain.host, "fcm.googleapis.com")
        XCTAssertEqual(plain.port, 443)
        XCTAssertEqual(plain.authority, "fcm.googleapis.com")
        XCTAssertEqual(plain.path, "/v1/projects/p/messages:send")
        let local = try XCTUnwrap(FCMTransport.HTTP2Target("HTTPS://127.0.0.1:8443?x=1#frag"))
        XCTAssertEqual(local.host, "127.0.0.1")
        XCTAssertEqual(local.port, 8443)
        XCTAssertEqual(local.path, "/?x=1")
        let v6 = try XCTUnwrap(FCMTransport.HTTP2Target("https://[::1]:9/a"))
        XCTAssertEqual(v6.host, "::1")
        XCTAssertEqual(v6.port, 9)
        XCTAssertEqual(v6.authority, "[::1]:9")
        for refused in ["http://127.0.0.1/", "https://", "https://u:p@host/", "https://host:0/", "https://host:70000/", "https://host:x/",
                        "https://[::1/", "https://[::1]x/", "ftp://host/"] {
            XCTAssertNil(FCMTransport.HTTP2Target(refused), refused)
        }
    }
}
