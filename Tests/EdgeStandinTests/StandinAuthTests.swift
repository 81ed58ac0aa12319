import EdgeContract
import EdgeStandin
import XCTest

/// 401 for a missing or unknown token, 403 with the revocation's code (ENR-10).
final class StandinAuthTests: StandinTestCase {
    private let lookup = ScanLookupRequest(value: DemoData.openOrder)

    func testMissingOrUnknownTokenIs401() async throws {
        let anonymous = try await StandinClient(port: client.port, token: nil).post(APIPath.scanBarcode, lookup).response()
        XCTAssertEqual(anonymous.status, 401)
        XCTAssertEqual(anonymous.errorCode, "UNAUTHORIZED")
        let unknown = try await StandinClient(port: client.port, token: "nobody").post(APIPath.scanBarcode, lookup).response()
        XCTAssertEqual(unknown.status, 401)
        // Authentication comes before parsing: a malformed body without a token is still 401.
        let malformed = try await StandinClient(port: client.port, token: nil).send("POST", APIPath.syncPush, body: Array("{".utf8)).response()
        XCTAssertEqual(malformed.status, 401)
        // Every contract path but link needs the token.
        for path in [APIPath.syncPull, APIPath.enrollmentStatus] {
            let answer = try await StandinClient(port: client.port, token: nil).get(path).response()
            XCTAssertEqual(answer.status, 401, path)
        }
    }

    func testRevokedTokensGet403WithTheirCode() async throws {
        let link = try await linkDemoCode()
        let user = StandinClient(port: client.port, token: link.accessToken)
        let answer1 = try await user.post(APIPath.scanBarcode, lookup).response().status
        XCTAssertEqual(answer1, 200)

        XCTAssertEqual(standin.backend.revoke(.token(link.accessToken), code: .tokenRevoked), 1)
        let revoked = try await user.post(APIPath.scanBarcode, lookup).response()
        XCTAssertEqual(revoked.status, 403)
        XCTAssertEqual(revoked.errorCode, "TOKEN_REVOKED")

        // ENR-10: one refresh first; it works while only the access token is revoked.
        let refreshToken = try XCTUnwrap(link.refreshToken)
        let refreshed = try await StandinClient(port: client.port, token: refreshToken)
            .post(APIPath.enrollmentRefresh, EnrollmentRefreshRequest(enrollmentID: link.enrollmentID)).response()
        XCTAssertEqual(refreshed.status, 200)
        let tokens = try refreshed.decode(EnrollmentRefreshResponse.self)

        // The patient is disconnected: every token of the enrollment, refresh included.
        XCTAssertEqual(standin.backend.revoke(.enrollment(link.enrollmentID), code: .patientDisconnected), 2)
        let disconnected = try await StandinClient(port: client.port, token: tokens.accessToken).post(APIPath.scanBarcode, lookup).response()
        XCTAssertEqual(disconnected.status, 403)
        XCTAssertEqual(disconnected.errorCode, "PATIENT_DISCONNECTED")
        let refreshAgain = try await StandinClient(port: client.port, token: tokens.refreshToken)
            .post(APIPath.enrollmentRefresh, EnrollmentRefreshRequest(enrollmentID: link.enrollmentID)).response()
        XCTAssertEqual(refreshAgain.status, 403)
        XCTAssertEqual(refreshAgain.errorCode, "PATIENT_DISCONNECTED")
    }

    func testRevocationByPrefixAndAsUnauthorized() async throws {
        standin.backend.addStaticToken("group-a-1")
        standin.backend.addStaticToken("group-a-2")
        XCTAssertEqual(standin.backend.revoke(.prefix("group-a-"), code: .unauthorized), 2)
        for token in ["group-a-1", "group-a-2"] {
            let answer = try await StandinClient(port: client.port, token: token).post(APIPath.scanBarcode, lookup).response()
            XCTAssertEqual(answer.status, 401, token)
        }
        let answer2 = try await client.post(APIPath.scanBarcode, lookup).response().status
        XCTAssertEqual(answer2, 200)
    }

    func testTheTokenIsNotRecorded() async throws {
        _ = try await client.post(APIPath.scanBarcode, lookup).response()
        let record = try XCTUnwrap(standin.requests.last)
        XCTAssertTrue(record.hasAuthorization)
        XCTAssertNil(record.headers["authorization"])
        XCTAssertFalse(record.headers.values.contains { $0.contains(Self.token) })
        XCTAssertEqual(record.headers["x-device-id"], client.deviceID)
        XCTAssertEqual(record.headers["x-platform"], "LINUX")
    }

    private func linkDemoCode() async throws -> EnrollmentLinkResponse {
        try await StandinClient(port: client.port, token: nil)
            .post(APIPath.enrollmentLink, EnrollmentLinkRequest(linkingCode: DemoData.linkingCode, deviceUUID: client.deviceID))
            .response().decode(EnrollmentLinkResponse.self)
    }
}
