@testable import EdgeCrypto
import XCTest

/// libcrypto is loaded with dlopen on first use (LibCrypto); these check both outcomes.
final class LibCryptoLoadingTests: XCTestCase {
    func testDebiansLibCryptoLoadsWithEveryFunction() throws {
        // Resolving every symbol is part of loading, so success means none is missing.
        let ssl = try LibCrypto.load().get()
        XCTAssertNotNil(ssl.sha256())
        XCTAssertNoThrow(try OpenSSL.library)
    }

    func testMissingLibraryIsACodedErrorNamingSonameAndPackage() {
        let soname = "libcrypto-edge-test-missing.so.3"
        switch LibCrypto.load(soname: soname) {
        case .success:
            XCTFail("loaded a library that does not exist")
        case .failure(let error):
            XCTAssertEqual(error.code, .libraryFailure)
            XCTAssertTrue(error.message.contains(soname), error.message)
            XCTAssertTrue(error.message.contains("libssl3"), error.message)
            XCTAssertEqual(error.context["function"], "dlopen")
            XCTAssertEqual(error.context["library"], soname)
            XCTAssertFalse(error.context["dlerror", default: ""].isEmpty)
        }
    }

    /// A library that loads but is not libcrypto reports the first missing function.
    func testLibraryWithoutTheFunctionsIsACodedError() {
        switch LibCrypto.load(soname: "libz.so.1") {
        case .success:
            XCTFail("accepted zlib as libcrypto")
        case .failure(let error):
            XCTAssertEqual(error.code, .libraryFailure)
            XCTAssertEqual(error.context["function"], "dlsym")
            XCTAssertEqual(error.context["symbol"], "EVP_CIPHER_CTX_new")
        }
    }
}
