import EdgeTestSupport
import Foundation
import XCTest
@testable import EdgeHTTP

/// HTTP/2 over TLS against nghttpd (a real HTTP/2 server) with the test certificate.
final class HTTP2Tests: XCTestCase {
    private var certificates: TestCertificates!
    private var server: Nghttpd!

    override func setUpWithError() throws {
        certificates = try TestCertificates()
        server = try Nghttpd(certificates: certificates)
    }

    override func tearDown() {
        server = nil
        certificates = nil
    }

    func testHTTP2IsNegotiatedWhenOffered() async throws {
        let transport = try CurlTransport(options: TransportOptions(caFile: certificates.caCertificate))
        defer { transport.shutdown() }
        let response = try await transport.send(HTTPRequest(method: .get, url: server.url("/hello.txt")))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.version, .http2)
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "hello over h2\n")
        XCTAssertNotNil(response.header("content-length"))

        let missing = try await transport.send(HTTPRequest(method: .get, url: server.url("/missing")))
        XCTAssertEqual(missing.status, 404)
        XCTAssertEqual(missing.version, .http2)
    }

    func testBodiesAreUploadedOverHTTP2() async throws {
        let transport = try CurlTransport(options: TransportOptions(caFile: certificates.caCertificate))
        defer { transport.shutdown() }
        let body = Array(#"{"grn":"GRN-1"}"#.utf8)
        let response = try await transport.send(HTTPRequest(method: .post, url: server.url("/hello.txt"),
                                                            headers: [HTTPHeader("Content-Type", "application/json")], body: body))
        XCTAssertEqual(response.version, .http2)
        XCTAssertEqual(response.body, body)  // nghttpd --echo-upload
    }

    func testTwentyConcurrentRequestsShareOneConnection() async throws {
        // One connection allowed per host: twenty concurrent requests can only all be in flight
        // at once by multiplexing streams on it.
        let transport = try CurlTransport(options: TransportOptions(pinnedPublicKeys: [certificates.pin],
                                                                    caFile: certificates.caCertificate, maxConnectionsPerHost: 1))
        defer { transport.shutdown() }
        let url = server.url("/hello.txt")
        let versions = try await withThrowingTaskGroup(of: HTTPVersion.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    let response = try await transport.send(HTTPRequest(method: .get, url: url))
                    XCTAssertEqual(response.status, 200)
                    return response.version
                }
            }
            var all: [HTTPVersion] = []
            for try await version in group { all.append(version) }
            return all
        }
        XCTAssertEqual(versions, Array(repeating: .http2, count: 20))
    }
}
