import Foundation
import XCTest
@testable import EdgeHTTP

/// Requests that fail, each for one reason, against real sockets on 127.0.0.1.
final class TransportFailureTests: XCTestCase {
    private var server: TestServer!

    override func setUpWithError() throws {
        server = try TestServer()
    }

    override func tearDown() {
        server = nil
    }

    func testRefusedConnectionIsCouldNotConnect() async throws {
        let transport = try CurlTransport()
        defer { transport.shutdown() }
        let port = try LoopbackPort.unused()
        let error = await failure(of: HTTPRequest(method: .get, url: "http://127.0.0.1:\(port)/"), on: transport)
        XCTAssertEqual(error?.code, .couldNotConnect)
        XCTAssertEqual(error?.isTransportFailure, true)
        XCTAssertEqual(error?.context["curlCode"], "7")
        XCTAssertEqual(error?.context["url"], "http://127.0.0.1:\(port)/")
    }

    func testSlowServerTimesOutNearTheTotalTimeout() async throws {
        let transport = try CurlTransport(options: TransportOptions(totalTimeout: 1))
        defer { transport.shutdown() }
        let start = ContinuousClock.now
        let error = await failure(of: HTTPRequest(method: .get, url: server.url("/slow?seconds=10")), on: transport)
        let elapsed = seconds(since: start)
        XCTAssertEqual(error?.code, .timedOut)
        XCTAssertEqual(error?.isTransportFailure, true)
        XCTAssertGreaterThan(elapsed, 0.5)
        XCTAssertLessThan(elapsed, 6)
    }

    func testClosedWithoutReplyIsConnectionDropped() async throws {
        let transport = try CurlTransport()
        defer { transport.shutdown() }
        let error = await failure(of: HTTPRequest(method: .post, url: server.url("/drop"), body: [1, 2, 3]), on: transport)
        XCTAssertEqual(error?.code, .connectionDropped)
        XCTAssertEqual(error?.isTransportFailure, true)
        // The transport goes on working after a dropped connection.
        let response = try await transport.send(HTTPRequest(method: .get, url: server.url("/echo")))
        XCTAssertEqual(response.status, 200)
    }

    func testBodiesOverTheLimitAreRefused() async throws {
        let transport = try CurlTransport(options: TransportOptions(maxResponseBytes: 100_000))
        defer { transport.shutdown() }
        // Announced by Content-Length (CURLOPT_MAXFILESIZE) and streamed chunked (write callback).
        for query in ["bytes=100001", "bytes=3000000", "bytes=100001&chunked=1", "bytes=3000000&chunked=1"] {
            let error = await failure(of: HTTPRequest(method: .get, url: server.url("/huge?\(query)")), on: transport)
            XCTAssertEqual(error?.code, .responseTooLarge, query)
            XCTAssertEqual(error?.isTransportFailure, false, query)
        }
        for query in ["bytes=100000", "bytes=100000&chunked=1"] {
            let response = try await transport.send(HTTPRequest(method: .get, url: server.url("/huge?\(query)")))
            XCTAssertEqual(response.body.count, 100_000, query)
        }
    }

    func testPlainHTTPToOtherHostsIsRefusedBeforeAnyTraffic() async throws {
        let transport = try CurlTransport(options: TransportOptions(connectTimeout: 30))
        defer { transport.shutdown() }
        // No resolver or socket is involved: these fail at once even though the hosts are unreachable.
        let start = ContinuousClock.now
        for url in ["http://example.com/sync", "http://10.0.0.1/", "http://192.168.1.1:8080/", "http://[2001:db8::1]/",
                    "http://127.0.0.1.example.com/", "http://localhost.example.com/", "HTTP://example.com/"] {
            let error = await failure(of: HTTPRequest(method: .post, url: url), on: transport)
            XCTAssertEqual(error?.code, .insecureURL, url)
            XCTAssertEqual(error?.isTransportFailure, false, url)
        }
        XCTAssertLessThan(seconds(since: start), 2)
    }

    func testInvalidURLs() async throws {
        let transport = try CurlTransport()
        defer { transport.shutdown() }
        for url in ["not a url", "ftp://127.0.0.1/file", "file:///etc/passwd", "https://", "", "127.0.0.1/echo"] {
            let error = await failure(of: HTTPRequest(method: .get, url: url), on: transport)
            XCTAssertEqual(error?.code, .invalidURL, url)
        }
    }

    func testMalformedOrReservedHeadersAreRefused() async throws {
        let transport = try CurlTransport()
        defer { transport.shutdown() }
        let url = server.url("/echo")
        for header in [HTTPHeader("X-Injected", "a\r\nEvil: yes"), HTTPHeader("Bad Name", "x"), HTTPHeader("", "x"),
                       HTTPHeader("Content-Length", "5"), HTTPHeader("Transfer-Encoding", "chunked"), HTTPHeader("Expect", "100-continue")] {
            let error = await failure(of: HTTPRequest(method: .post, url: url, headers: [header]), on: transport)
            XCTAssertEqual(error?.code, .invalidRequest, header.name)
        }
    }

    func testCancellingASlowRequestThrowsCancelledPromptly() async throws {
        let transport = try CurlTransport()
        defer { transport.shutdown() }
        let url = server.url("/slow?seconds=30")
        let task = Task { await result(of: HTTPRequest(method: .get, url: url), on: transport) }
        try await Task.sleep(for: .milliseconds(300))
        let start = ContinuousClock.now
        task.cancel()
        let outcome = await task.value
        XCTAssertLessThan(seconds(since: start), 3)
        guard case .failure(let error) = outcome else { return XCTFail("a cancelled request succeeded") }
        XCTAssertEqual(error.code, .cancelled)
        XCTAssertEqual(error.context["reason"], "task cancelled")
        XCTAssertFalse(error.isTransportFailure)
        // The transport still works afterwards.
        let response = try await transport.send(HTTPRequest(method: .get, url: server.url("/echo")))
        XCTAssertEqual(response.status, 200)
    }

    func testAnAlreadyCancelledTaskDoesNotSend() async throws {
        let transport = try CurlTransport()
        defer { transport.shutdown() }
        let url = server.url("/slow?seconds=30")
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await result(of: HTTPRequest(method: .get, url: url), on: transport)
        }
        let outcome = await task.value
        guard case .failure(let error) = outcome else { return XCTFail("a cancelled request succeeded") }
        XCTAssertEqual(error.code, .cancelled)
    }

    func testShutdownFailsRequestsInFlightAndRefusesNewOnes() async throws {
        let transport = try CurlTransport()
        let url = server.url("/slow?seconds=30")
        let tasks = (0..<5).map { _ in
            Task { await result(of: HTTPRequest(method: .get, url: url), on: transport) }
        }
        try await Task.sleep(for: .milliseconds(300))
        let start = ContinuousClock.now
        transport.shutdown()
        for task in tasks {
            guard case .failure(let error) = await task.value else { return XCTFail("a request survived shutdown") }
            XCTAssertEqual(error.code, .cancelled)
            XCTAssertEqual(error.context["reason"], "shutdown")
        }
        XCTAssertLessThan(seconds(since: start), 3)
        let error = await failure(of: HTTPRequest(method: .get, url: server.url("/echo")), on: transport)
        XCTAssertEqual(error?.code, .cancelled)
        transport.shutdown()  // idempotent
    }

    func testDroppingTheTransportWithoutShutdownDoesNotHang() async throws {
        var transport: CurlTransport? = try CurlTransport()
        let response = try await transport?.send(HTTPRequest(method: .get, url: server.url("/echo")))
        XCTAssertEqual(response?.status, 200)
        transport = nil  // deinit shuts the loop down
        XCTAssertNil(transport)
    }
}
