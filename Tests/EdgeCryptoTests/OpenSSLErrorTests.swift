@testable import EdgeCrypto
import XCTest

/// The helper every OpenSSL call goes through, fed a real OpenSSL failure.
final class OpenSSLErrorTests: XCTestCase {
    func testNullResultBecomesLibraryFailureWithOpenSSLReason() throws {
        let ssl = try OpenSSL.library
        ssl.errClearError()
        do {
            let kdf = try OpenSSL.nonNull(ssl.kdfFetch(nil, "NO-SUCH-KDF", nil), "EVP_KDF_fetch", "no such KDF")
            ssl.kdfFree(kdf)
            XCTFail("fetched a KDF that does not exist")
        } catch {
            XCTAssertEqual(error.code, .libraryFailure)
            XCTAssertEqual(error.message, "no such KDF")
            XCTAssertEqual(error.context["function"], "EVP_KDF_fetch")
            let reason = error.context["openssl"] ?? ""
            XCTAssertTrue(reason.hasPrefix("error:"), reason)
            XCTAssertTrue(reason.contains("NO-SUCH-KDF") || reason.contains("unsupported"), reason)
        }
        XCTAssertEqual(ssl.errPeekError(), 0, "the error queue is drained")
    }

    func testCheckAcceptsOnlyOne() {
        XCTAssertNoThrow(try OpenSSL.check(1, "f", "m"))
        for bad: Int32 in [0, -1, 2] {
            assertThrows(.libraryFailure) { () throws(CryptoError) in try OpenSSL.check(bad, "f", "m") }
        }
    }

    func testEmptyQueueIsSaidSo() throws {
        try OpenSSL.library.errClearError()
        XCTAssertEqual(OpenSSL.failure("f", "m").context["openssl"], "no OpenSSL error queued")
    }
}
