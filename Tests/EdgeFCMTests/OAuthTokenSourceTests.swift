import EdgeContract
import EdgeCore
import EdgeFCM
import EdgeTestSupport
import Foundation
import XCTest

/// PSH-8 against the stand-in's token endpoint, which verifies the RS256 signature and claims.
final class OAuthTokenSourceTests: XCTestCase {
    func testJWTStructure() async throws {
        let harness = try await FCMHarness(self)
        let jwt = try OAuthTokenSource.assertion(for: harness.account, now: 1_000_000)
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        XCTAssertEqual(parts.count, 3)
        XCTAssertFalse(jwt.contains("=") || jwt.contains("+") || jwt.contains("/"), "base64url without padding")
        func decode(_ part: Substring) throws -> JSONValue {
            var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while text.count % 4 != 0 { text += "=" }
            return try ContractCoding.decode(JSONValue.self, from: [UInt8](try XCTUnwrap(Data(base64Encoded: text))))
        }
        XCTAssertEqual(try decode(parts[0]), .object(["alg": .string("RS256"), "typ": .string("JWT")]))
        let claims = try decode(parts[1])
        XCTAssertEqual(claims["iss"]?.stringValue, FCMHarness.clientEmail)
        XCTAssertEqual(claims["scope"]?.stringValue, "https://www.googleapis.com/auth/firebase.messaging")
        XCTAssertEqual(claims["aud"]?.stringValue, harness.baseURL + "/token")
        XCTAssertEqual(claims["iat"], .integer(1_000_000 - 60))
        XCTAssertEqual(claims["exp"], .integer(1_000_000 - 60 + 3600))
        // Cross-check the signature with the openssl CLI.
        try harness.tool.write("input", Array((parts[0] + "." + parts[1]).utf8))
        var signature = parts[2].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while signature.count % 4 != 0 { signature += "=" }
        try harness.tool.write("sig", [UInt8](try XCTUnwrap(Data(base64Encoded: signature))))
        XCTAssertEqual(try harness.tool.run(["dgst", "-sha256", "-verify", harness.tool.path("key.pub.pem"), "-signature",
                                             harness.tool.path("sig"), harness.tool.path("input")]), 0)
    }

    func testStandinAcceptsTheJWTAndTokenIsCachedUntilTheMargin() async throws {
        let harness = try await FCMHarness(self, tokenLifetime: 500)
        let source = harness.tokenSource()
        let first = try await source.accessToken()
        XCTAssertEqual(harness.standin.backend.fcm.tokenRequests, 1)
        XCTAssertFalse("\(first)".contains("ya29"), "the description hides the token")
        harness.clock.advance(500 - 226)  // 226 s left: still >= 3m45s
        _ = try await source.accessToken()
        let exchangesCached = await source.exchanges
        XCTAssertEqual(exchangesCached, 1)
        harness.clock.advance(2)  // 224 s left: refreshed
        let second = try await source.accessToken()
        let exchangesRefreshed = await source.exchanges
        XCTAssertEqual(exchangesRefreshed, 2)
        XCTAssertNotEqual(first, second)
        XCTAssertEqual(harness.standin.backend.fcm.tokenRequests, 2)
    }

    /// Issue #30 item 2: the token is used for its lifetime on the boot clock, whatever the wall
    /// clock does meanwhile: stepped back an hour it does not keep an expired token, stepped
    /// forward ten years it does not drop a good one.
    func testAWallClockStepNeitherStretchesNorShortensAToken() async throws {
        let harness = try await FCMHarness(self, tokenLifetime: 500)
        let wall = harness.clock, boot = TestClock()
        let source = OAuthTokenSource(account: harness.account, transport: harness.transport, clock: { wall.now },
                                      bootClock: { BootInstant(bootID: "test", seconds: boot.now) })
        _ = try await source.accessToken()
        wall.advance(10 * 365 * 86400)
        boot.advance(100)
        _ = try await source.accessToken()
        var exchanges = await source.exchanges
        XCTAssertEqual(exchanges, 1, "a step forward dropped a good token")
        wall.advance(-10 * 365 * 86400 - 3600)
        boot.advance(500 - 224 - 100)  // 224 s left on the boot clock
        _ = try? await source.accessToken()
        exchanges = await source.exchanges
        XCTAssertEqual(exchanges, 2, "a step back kept a token past its margin")
    }

    func testClockSkewIsInvalidGrant() async throws {
        let harness = try await FCMHarness(self)
        harness.clock.advance(-7200)  // station two hours behind: exp already passed
        do {
            _ = try await harness.tokenSource().accessToken()
            XCTFail("a stale JWT was accepted")
        } catch {
            XCTAssertEqual(error.code, .invalidGrant)
        }
    }

    func testForeignKeyIsInvalidGrant() async throws {
        let harness = try await FCMHarness(self)
        let other = try harness.tool.generateKeyPair(name: "other")
        let account = try ServiceAccount(json: FCMHarness.accountJSON(privatePEM: other.privatePEM, tokenURI: harness.baseURL + "/token"))
        do {
            _ = try await harness.tokenSource(account: account).accessToken()
            XCTFail("a JWT signed by another key was accepted")
        } catch {
            XCTAssertEqual(error.code, .invalidGrant)
            XCTAssertFalse(error.message.contains("PRIVATE KEY"))
        }
    }

    func testServiceAccountParsing() async throws {
        let harness = try await FCMHarness(self)
        XCTAssertEqual(harness.account.projectID, FCMHarness.projectID)
        XCTAssertEqual(harness.account.clientEmail, FCMHarness.clientEmail)
        XCTAssertFalse("\(harness.account)".contains("PRIVATE"))
        XCTAssertThrowsError(try ServiceAccount(json: Array("{}".utf8))) { XCTAssertEqual(($0 as? FCMError)?.code, .invalidServiceAccount) }
        XCTAssertThrowsError(try ServiceAccount(json: FCMHarness.accountJSON(privatePEM: Array("junk".utf8), tokenURI: "x"))) {
            XCTAssertEqual(($0 as? FCMError)?.code, .invalidServiceAccount)
        }
    }
}
