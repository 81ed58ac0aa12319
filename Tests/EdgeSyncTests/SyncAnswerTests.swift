import EdgeContract
import EdgeHTTP
import EdgeSync
import XCTest

/// The SYN-7 table, row by row, on answers as the transport returns them.
final class SyncAnswerTests: XCTestCase {
    private func response(_ status: Int, code: String? = nil, message: String = "m", details: JSONValue? = nil,
                          headers: [HTTPHeader] = []) throws -> HTTPResponse {
        let body = try code.map { try ContractCoding.encode(APIErrorEnvelope(error: APIError(code: $0, message: message, details: details))) } ?? []
        return HTTPResponse(status: status, headers: headers, body: body, version: .http1_1)
    }

    func testSuccessAndReplayAreDone() throws {
        XCTAssertEqual(SyncAnswer.classify(try response(200), now: 0), .done(duplicate: false))
        XCTAssertEqual(SyncAnswer.classify(try response(201), now: 0), .done(duplicate: false))
        XCTAssertEqual(SyncAnswer.classify(try response(200, headers: [HTTPHeader("idempotent-replayed", "true")]), now: 0),
                       .done(duplicate: true))
    }

    func testRetryableStatusesHonourRetryAfter() throws {
        for status in [408, 429, 500, 502, 503, 504] {
            guard case .retry(_, let wait, let counts) = SyncAnswer.classify(try response(status), now: 0) else {
                return XCTFail("\(status) should be retried")
            }
            XCTAssertNil(wait)
            XCTAssertTrue(counts)
        }
        let limited = SyncAnswer.classify(try response(429, code: "RATE_LIMITED", headers: [HTTPHeader("retry-after", "7")]), now: 0)
        XCTAssertEqual(limited, .retry(reason: "HTTP 429 RATE_LIMITED", serverWait: 7, countsAgainstEntry: true))
        let dated = SyncAnswer.classify(try response(503, headers: [HTTPHeader("retry-after", "Thu, 01 Jan 1970 00:01:40 GMT")]), now: 90)
        XCTAssertEqual(dated, .retry(reason: "HTTP 503", serverWait: 10, countsAgainstEntry: true))
    }

    func testTransportFailuresDoNotCountAgainstTheEntry() {
        let answer = SyncAnswer.classify(TransportError(.couldNotConnect, "could not connect to 127.0.0.1:9"))
        XCTAssertEqual(answer, .retry(reason: "could not connect to 127.0.0.1:9", serverWait: nil, countsAgainstEntry: false))
    }

    func testCredentialRejections() throws {
        XCTAssertEqual(SyncAnswer.classify(try response(401, code: "UNAUTHORIZED"), now: 0), .credentialRejected(status: 401, code: "UNAUTHORIZED"))
        XCTAssertEqual(SyncAnswer.classify(try response(401), now: 0), .credentialRejected(status: 401, code: nil))
        XCTAssertEqual(SyncAnswer.classify(try response(403, code: "TOKEN_REVOKED"), now: 0), .credentialRejected(status: 403, code: "TOKEN_REVOKED"))
        XCTAssertEqual(SyncAnswer.classify(try response(403, code: "PATIENT_DISCONNECTED"), now: 0),
                       .credentialRejected(status: 403, code: "PATIENT_DISCONNECTED"))
        // Any other 403 is a verdict on the entry, not the token.
        guard case .deadLetter(let reason) = SyncAnswer.classify(try response(403, code: "WRONG_TENANT", message: "other tenant"), now: 0) else {
            return XCTFail("403 WRONG_TENANT is dead-lettered")
        }
        XCTAssertEqual(reason, "HTTP 403 WRONG_TENANT: other tenant")
    }

    func testConflictKeepsTheServersDetails() throws {
        let details: JSONValue = .object(["changes": .string("line 1 received 5, not 4"), "server_version": .object(["status": .string("RECEIVED")])])
        guard case .conflict(let bytes, let changes) = SyncAnswer.classify(try response(409, code: "CONFLICT", details: details), now: 0) else {
            return XCTFail("409 is a conflict")
        }
        XCTAssertEqual(changes, "line 1 received 5, not 4")
        XCTAssertEqual(try ContractCoding.decode(JSONValue.self, from: bytes), details)
    }

    func testUpgradeAndOtherClientErrors() throws {
        XCTAssertEqual(SyncAnswer.classify(try response(426, code: "UPGRADE_REQUIRED", message: "update to 2.0"), now: 0),
                       .upgradeRequired(message: "update to 2.0"))
        XCTAssertEqual(SyncAnswer.classify(try response(422, code: "INVALID_REQUEST", message: "bad\u{1b}[2Jline"), now: 0),
                       .deadLetter(reason: "HTTP 422 INVALID_REQUEST: bad [2Jline"))
        XCTAssertEqual(SyncAnswer.classify(HTTPResponse(status: 404, headers: [], body: Array("<html>".utf8), version: .http1_1), now: 0),
                       .deadLetter(reason: "HTTP 404"))
    }

    func testRedirectsAndOddStatusesAreRetriedNotDropped() throws {
        guard case .retry(let reason, _, _) = SyncAnswer.classify(try response(302), now: 0) else {
            return XCTFail("302 is retried")
        }
        XCTAssertEqual(reason, "HTTP 302 (unexpected status)")
    }
}
