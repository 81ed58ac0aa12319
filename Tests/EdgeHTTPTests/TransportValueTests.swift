import Foundation
import XCTest
@testable import EdgeHTTP

/// Values, option checks and secret hygiene; no network except one refused connection.
final class TransportValueTests: XCTestCase {
    private let token = "Bearer s3cr3t-t0ken-value"
    private let secretBody = #"{"refreshToken":"body-secret-987"}"#

    func testDescriptionsNeverShowCredentialsOrBodies() {
        let request = HTTPRequest(method: .post, url: "https://user:pw@sync.example.com/v1/push?token=query-secret",
                                  headers: [HTTPHeader("Authorization", token), HTTPHeader("X-Device-Id", "dev-1")],
                                  body: Array(secretBody.utf8))
        let response = HTTPResponse(status: 200, headers: [HTTPHeader("Set-Cookie", "session=cookie-secret")],
                                    body: Array(secretBody.utf8), version: .http2)
        var dumped = ""
        dump(request, to: &dumped)
        dump(response, to: &dumped)
        for text in [String(describing: request), String(reflecting: request), String(describing: response),
                     String(reflecting: response), dumped, "\(request.headers)", "\(response.headers)"] {
            for secret in ["s3cr3t", "body-secret", "query-secret", "user:pw", "cookie-secret"] {
                XCTAssertFalse(text.contains(secret), "\(secret) leaked in: \(text)")
            }
        }
        XCTAssertTrue(String(describing: request).contains("https://sync.example.com/v1/push"))
        XCTAssertTrue(dumped.contains("X-Device-Id"))
        XCTAssertEqual(String(describing: HTTPHeader("X-Device-Id", "dev-1")), "X-Device-Id: dev-1")
        XCTAssertEqual(String(describing: HTTPHeader("authorization", token)), "authorization: <redacted>")
    }

    func testErrorsNeverCarryCredentialsOrBodies() async throws {
        let transport = try CurlTransport()
        defer { transport.shutdown() }
        let port = try LoopbackPort.unused()
        // example.com may answer (a machine with network): only errors are checked, and the
        // refused loopback port must give one, or the loop checks nothing.
        var failed = 0
        for url in ["http://127.0.0.1:\(port)/push?token=query-secret", "http://example.com/?token=query-secret"] {
            let request = HTTPRequest(method: .post, url: url, headers: [HTTPHeader("Authorization", token)], body: Array(secretBody.utf8))
            guard let error = await failure(of: request, on: transport) else { continue }
            failed += 1
            let text = "\(error) \(String(reflecting: error)) \(error.context)"
            for secret in ["s3cr3t", "body-secret", "query-secret"] {
                XCTAssertFalse(text.contains(secret), "\(secret) leaked in: \(text)")
            }
        }
        XCTAssertGreaterThan(failed, 0, "no request failed, so no error was checked")
        let bad = HTTPRequest(method: .post, url: "http://127.0.0.1:\(port)/", headers: [HTTPHeader("Authorization", token + "\r\n")])
        let error = await failure(of: bad, on: transport)
        XCTAssertEqual(error?.code, .invalidRequest)
        XCTAssertFalse("\(String(reflecting: error)) \(error?.context ?? [:])".contains("s3cr3t"))
    }

    func testTransportFailureClassification() {
        let retried: Set<TransportErrorCode> = [.couldNotResolve, .couldNotConnect, .timedOut, .connectionDropped,
                                                .tlsFailure, .pinMismatch, .protocolError]
        let all: [TransportErrorCode] = [.invalidURL, .insecureURL, .couldNotResolve, .couldNotConnect, .timedOut, .tlsFailure,
                                         .pinMismatch, .connectionDropped, .responseTooLarge, .protocolError, .cancelled,
                                         .invalidOptions, .invalidRequest, .internalFailure]
        for code in all {
            let error = TransportError(code, "x")
            XCTAssertEqual(error.isTransportFailure, retried.contains(code), code.rawValue)
            XCTAssertEqual(error.isSecurityFailure, code == .tlsFailure || code == .pinMismatch, code.rawValue)
        }
    }

    func testOptionsAreChecked() {
        let valid = "sha256//" + String(repeating: "A", count: 43) + "="
        XCTAssertNoThrow(try CurlTransport(options: TransportOptions(pinnedPublicKeys: [valid])).shutdown())
        let invalid: [TransportOptions] = [
            TransportOptions(connectTimeout: 0), TransportOptions(totalTimeout: -1), TransportOptions(totalTimeout: .infinity),
            TransportOptions(totalTimeout: .nan), TransportOptions(pinnedPublicKeys: ["AAAA"]),
            TransportOptions(pinnedPublicKeys: ["sha256//" + String(repeating: "A", count: 44)]),
            TransportOptions(pinnedPublicKeys: ["sha256//" + String(repeating: "A", count: 43) + "=;sha256//x"]),
            TransportOptions(caFile: "/nonexistent/edge-ca.pem"), TransportOptions(maxResponseBytes: 0),
            TransportOptions(maxConnectionsPerHost: 0), TransportOptions(userAgent: "edge\r\nX-Evil: 1"),
        ]
        for options in invalid {
            XCTAssertThrowsError(try CurlTransport(options: options), "\(options)") { error in
                XCTAssertEqual((error as? TransportError)?.code, .invalidOptions)
            }
        }
    }

    func testLoopbackHosts() {
        for host in ["127.0.0.1", "127.255.0.9", "localhost", "LocalHost", "[::1]", "[0:0:0:0:0:0:0:1]"] {
            XCTAssertTrue(RequestTarget.isLoopback(host), host)
        }
        for host in ["128.0.0.1", "10.0.0.1", "localhost.example.com", "127.0.0.1.nip.io", "[::2]", "[::ffff:8.8.8.8]", "example.com", ""] {
            XCTAssertFalse(RequestTarget.isLoopback(host), host)
        }
    }

    /// The check configuration uses (sync.base_url, push.endpoint) agrees with the transport's.
    func testPlainHTTPIsAcceptedToLoopbackOnly() {
        for url in ["http://127.0.0.1:8080", "HTTP://LocalHost/x", "http://[::1]:80/x", "http://127.9.9.9"] {
            XCTAssertTrue(PlainHTTP.isLoopback(url), url)
        }
        for url in ["https://127.0.0.1", "http://10.0.0.1", "http://localhost.evil.invalid", "http://127.0.0.1.nip.invalid",
                    "http://localhost@evil.invalid", "ftp://127.0.0.1", "http://"] {
            XCTAssertFalse(PlainHTTP.isLoopback(url), url)
        }
    }

    func testResponseHeaderLookupIsCaseInsensitiveAndFirst() {
        let response = HTTPResponse(status: 200, headers: [HTTPHeader("Retry-After", "5"), HTTPHeader("X-A", "1"), HTTPHeader("x-a", "2")],
                                    body: [], version: .http1_1)
        XCTAssertEqual(response.header("retry-after"), "5")
        XCTAssertEqual(response.header("X-A"), "1")
        XCTAssertEqual(response.headers(named: "x-A"), ["1", "2"])
        XCTAssertEqual(response.headers.map(\.name), ["retry-after", "x-a", "x-a"])
        XCTAssertNil(response.header("missing"))
    }

    func testURLRedaction() {
        XCTAssertEqual(URLRedaction.printable("https://a:b@host:8443/p/q?x=1#f"), "https://host:8443/p/q")
        XCTAssertEqual(URLRedaction.printable("https://host/p?token=1"), "https://host/p")
        XCTAssertEqual(URLRedaction.printable("http://127.0.0.1:80/"), "http://127.0.0.1:80/")
        // User information only in the authority; an "@" in the path stays.
        XCTAssertEqual(URLRedaction.printable("https://u@h/p@q?a@b"), "https://h/p@q")
        XCTAssertEqual(URLRedaction.printable("https://h:1@x@y/"), "https://y/")
        XCTAssertEqual(URLRedaction.printable("no scheme/a@b?q"), "no scheme/a@b")
        XCTAssertEqual(URLRedaction.printable("https://"), "https://")
        XCTAssertEqual(URLRedaction.printable("https://é.example/\u{00e9}?x"), "https://é.example/\u{00e9}")
        XCTAssertEqual(URLRedaction.printable("https://h/" + String(repeating: "é", count: 300)).count, 200)
    }
}
