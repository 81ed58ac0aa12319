import EdgeTestSupport
import Foundation
import XCTest
@testable import EdgeHTTP

/// HTTPS against the python test server with a certificate from a throw-away test CA.
final class TLSTests: XCTestCase {
    private var certificates: TestCertificates!
    private var server: TestServer!

    override func setUpWithError() throws {
        certificates = try TestCertificates()
        server = try TestServer(tls: certificates)
    }

    override func tearDown() {
        server = nil
        certificates = nil
    }

    private func send(_ options: TransportOptions, _ url: String? = nil) async throws(TransportError) -> HTTPResponse {
        let transport = try CurlTransport(options: options)
        defer { transport.shutdown() }
        return try await transport.send(HTTPRequest(method: .get, url: url ?? server.url("/echo")))
    }

    func testTheTestCAIsTrustedWhenConfigured() async throws {
        let response = try await send(TransportOptions(caFile: certificates.caCertificate))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.version, .http1_1)  // the python server offers no ALPN h2
        let byName = try await send(TransportOptions(caFile: certificates.caCertificate), "https://localhost:\(server.port)/echo")
        XCTAssertEqual(byName.status, 200)
    }

    func testAnUnknownCAFailsVerification() async throws {
        do {
            _ = try await send(TransportOptions())
            XCTFail("an unknown CA was accepted")
        } catch {
            XCTAssertEqual(error.code, .tlsFailure)
            XCTAssertTrue(error.isSecurityFailure)
            XCTAssertTrue(error.isTransportFailure)
            XCTAssertEqual(error.context["curlCode"], "60")
        }
    }

    func testTheRightPinIsAccepted() async throws {
        let response = try await send(TransportOptions(pinnedPublicKeys: [certificates.pin], caFile: certificates.caCertificate))
        XCTAssertEqual(response.status, 200)
        // Any one of several pins (a backup key first) is enough.
        let rotated = try await send(TransportOptions(pinnedPublicKeys: [certificates.otherPin, certificates.pin],
                                                      caFile: certificates.caCertificate))
        XCTAssertEqual(rotated.status, 200)
    }

    func testAWrongPinIsPinMismatch() async throws {
        do {
            _ = try await send(TransportOptions(pinnedPublicKeys: [certificates.otherPin], caFile: certificates.caCertificate))
            XCTFail("a wrong pin was accepted")
        } catch {
            XCTAssertEqual(error.code, .pinMismatch)
            XCTAssertTrue(error.isSecurityFailure)
        }
    }

    func testAPinDoesNotReplaceCertificateVerification() async throws {
        // The right pin but no trusted CA: verification still fails.
        do {
            _ = try await send(TransportOptions(pinnedPublicKeys: [certificates.pin]))
            XCTFail("a pin bypassed certificate verification")
        } catch {
            XCTAssertEqual(error.code, .tlsFailure)
        }
    }
}
