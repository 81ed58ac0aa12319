import EdgeTestSupport
import Foundation
import XCTest
@testable import EdgeHTTP

/// Requests that succeed, against the python test server on 127.0.0.1 (plain HTTP/1.1).
final class CurlTransportTests: XCTestCase {
    private var server: TestServer!
    private var transport: CurlTransport!

    override func setUpWithError() throws {
        server = try TestServer()
        transport = try CurlTransport()
    }

    override func tearDown() {
        transport?.shutdown()
        transport = nil
        server = nil
    }

    func testPostRoundTripsHeadersAndBody() async throws {
        let body = Array(#"{"event":"scan","count":1}"#.utf8)
        let request = HTTPRequest(method: .post, url: server.url("/echo?x=1"), headers: [
            HTTPHeader("Authorization", "Bearer token-123"),
            HTTPHeader("Idempotency-Key", "6f1c3f0e-8d7a-4a43-9f61-0c9a4b1e2d3c"),
            HTTPHeader("X-Platform", "LINUX"),
            HTTPHeader("Content-Type", "application/json"),
            HTTPHeader("X-Empty", ""),
        ], body: body)
        let response = try await transport.send(request)
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.version, .http1_1)
        XCTAssertEqual(response.header("CONTENT-TYPE"), "application/json")
        XCTAssertTrue(response.headers.allSatisfy { $0.name == $0.name.lowercased() })
        let echo = try Echo(response)
        XCTAssertEqual(echo.method, "POST")
        XCTAssertEqual(echo.path, "/echo?x=1")
        XCTAssertEqual(echo.body, String(decoding: body, as: UTF8.self))
        XCTAssertEqual(echo.values("Authorization"), ["Bearer token-123"])
        XCTAssertEqual(echo.values("Idempotency-Key"), ["6f1c3f0e-8d7a-4a43-9f61-0c9a4b1e2d3c"])
        XCTAssertEqual(echo.values("X-Platform"), ["LINUX"])
        XCTAssertEqual(echo.values("Content-Type"), ["application/json"])
        XCTAssertEqual(echo.values("X-Empty"), [""])
        XCTAssertEqual(echo.values("User-Agent"), ["edge"])
        XCTAssertEqual(echo.values("Expect"), [])
    }

    func testMethodsAndBodies() async throws {
        for (method, body) in [(HTTPMethod.get, ""), (.put, ""), (.put, "put body"), (.delete, ""), (.delete, "why"), (.post, "")] {
            let response = try await transport.send(HTTPRequest(method: method, url: server.url("/echo"), body: Array(body.utf8)))
            let echo = try Echo(response)
            XCTAssertEqual(echo.method, method.rawValue)
            XCTAssertEqual(echo.body, body, "\(method)")
            if method == .put || method == .post { XCTAssertEqual(echo.values("Content-Length"), ["\(body.utf8.count)"]) }
        }
    }

    func testLargeBodyIsSentWithoutExpectContinue() async throws {
        // curl would add "Expect: 100-continue" for a body this large; the transport suppresses it.
        let body = (0..<(2 * 1024 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let response = try await transport.send(HTTPRequest(method: .post, url: server.url("/echo"), body: body))
        let echo = try Echo(response)
        XCTAssertEqual(echo.body_length, body.count)
        let digest = try Command.shell("sha256sum < \(try write(body)) | cut -d' ' -f1")
        XCTAssertEqual(echo.body_sha256, digest)
        XCTAssertEqual(echo.values("Expect"), [])
    }

    func testErrorStatusesAreResponsesWithTheirHeaders() async throws {
        let limited = try await transport.send(HTTPRequest(method: .post, url: server.url("/status/429?header=Retry-After:7&header=X-Reason:busy")))
        XCTAssertEqual(limited.status, 429)
        XCTAssertEqual(limited.header("retry-after"), "7")
        XCTAssertEqual(limited.header("X-REASON"), "busy")
        XCTAssertEqual(String(decoding: limited.body, as: UTF8.self), "status 429")

        let failed = try await transport.send(HTTPRequest(method: .get, url: server.url("/status/503")))
        XCTAssertEqual(failed.status, 503)
    }

    func testRedirectsAreNotFollowed() async throws {
        let response = try await transport.send(HTTPRequest(method: .get, url: server.url("/status/302?header=Location:/echo")))
        XCTAssertEqual(response.status, 302)
        XCTAssertEqual(response.header("location"), "/echo")
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "status 302")
    }

    func testInterimResponsesAreDiscarded() async throws {
        let response = try await transport.send(HTTPRequest(method: .get, url: server.url("/interim")))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("x-final"), "yes")
        XCTAssertNil(response.header("x-interim"))
        XCTAssertNil(response.header("link"))
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "final")
    }

    func testSequentialRequestsReuseTheConnection() async throws {
        let first = try Echo(try await transport.send(HTTPRequest(method: .get, url: server.url("/echo"))))
        let second = try Echo(try await transport.send(HTTPRequest(method: .post, url: server.url("/echo"), body: [1])))
        XCTAssertEqual(first.client_port, second.client_port)
        XCTAssertEqual(first.connection_requests, 1)
        XCTAssertEqual(second.connection_requests, 2)
    }

    func testLocalhostAndLoopbackAddressesAllowPlainHTTP() async throws {
        let byName = try await transport.send(HTTPRequest(method: .get, url: "http://localhost:\(server.port)/echo"))
        XCTAssertEqual(byName.status, 200)
        let byAddress = try await transport.send(HTTPRequest(method: .get, url: "http://127.0.0.1:\(server.port)/echo"))
        XCTAssertEqual(byAddress.status, 200)
    }

    func testHundredSequentialRequests() async throws {
        var ports = Set<Int>()
        for index in 0..<100 {
            let response = try await transport.send(HTTPRequest(method: .post, url: server.url("/echo"), body: Array("\(index)".utf8)))
            let echo = try Echo(response)
            XCTAssertEqual(echo.body, "\(index)")
            ports.insert(echo.client_port)
        }
        XCTAssertEqual(ports.count, 1, "sequential requests should share one kept-alive connection")
    }

    func testFiftyConcurrentRequestsStayWithinTheConnectionLimit() async throws {
        let transport = try CurlTransport(options: TransportOptions(maxConnectionsPerHost: 4))
        defer { transport.shutdown() }
        let url = server.url("/echo")
        let echoes = try await withThrowingTaskGroup(of: (Int, Echo).self) { group in
            for index in 0..<50 {
                group.addTask {
                    let response = try await transport.send(HTTPRequest(method: .post, url: url, body: Array("\(index)".utf8)))
                    return (index, try Echo(response))
                }
            }
            var all: [(Int, Echo)] = []
            for try await result in group { all.append(result) }
            return all
        }
        XCTAssertEqual(echoes.count, 50)
        for (index, echo) in echoes { XCTAssertEqual(echo.body, "\(index)") }
        XCTAssertLessThanOrEqual(Set(echoes.map(\.1.client_port)).count, 4)
    }

    private func write(_ bytes: [UInt8]) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("edge-body-\(UUID().uuidString)")
        try Data(bytes).write(to: url)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url.path
    }
}
