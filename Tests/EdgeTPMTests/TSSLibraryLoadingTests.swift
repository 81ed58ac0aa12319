@testable import EdgeTPM
import XCTest

/// The tpm2-tss libraries are loaded with dlopen on first use (TSSLibrary); these check both
/// outcomes without a TPM.
final class TSSLibraryLoadingTests: XCTestCase {
    func testDebiansTSSLoadsWithEveryFunction() throws {
        // Resolving every symbol is part of loading, so success means none is missing.
        let tss = try TSSLibrary.load().get()
        XCTAssertNotNil(tss.rcDecode(0x1DF))
        XCTAssertNotEqual(TPMResponseCode(0x1DF).decoded, "unknown")
    }

    func testMissingLibraryIsACodedErrorNamingSonameAndPackage() {
        let soname = "libtss2-edge-test-missing.so.0"
        switch TSSLibrary.load(tctiLoader: soname) {
        case .success:
            XCTFail("loaded a library that does not exist")
        case .failure(let error):
            // The vault reports this code as "TPM unavailable".
            XCTAssertEqual(error.code, .tctiUnavailable)
            XCTAssertTrue(error.message.contains(soname), error.message)
            XCTAssertTrue(error.message.contains("libtss2-tctildr0"), error.message)
            XCTAssertEqual(error.context["function"], "dlopen")
            XCTAssertEqual(error.context["library"], soname)
            XCTAssertFalse(error.context["dlerror", default: ""].isEmpty)
        }
    }

    /// A library that loads but lacks the functions reports the first one missing.
    func testLibraryWithoutTheFunctionsIsACodedError() {
        switch TSSLibrary.load(marshal: "libtss2-rc.so.0") {
        case .success:
            XCTFail("accepted libtss2-rc as the marshalling library")
        case .failure(let error):
            XCTAssertEqual(error.code, .tctiUnavailable)
            XCTAssertEqual(error.context["function"], "dlsym")
            XCTAssertEqual(error.context["library"], "libtss2-rc.so.0")
            XCTAssertEqual(error.context["symbol"], "Tss2_MU_TPM2B_NAME_Marshal")
        }
    }
}
