import EdgeCrypto
import EdgeTestSupport
@testable import EdgeVault
import Glibc
import XCTest

/// The vault tests' shared fixture: a private temporary root per test (removed whatever modes a
/// test left on it) and the conversions every vault test uses.
class VaultTestCase: XCTestCase {
    var root = ""

    override func setUpWithError() throws {
        var template = Array("/tmp/edge-vault-tests-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buf in buf.baseAddress.flatMap { mkdtemp($0) } }
        root = String(cString: try XCTUnwrap(made))
    }

    override func tearDownWithError() throws {
        _ = system("chmod -R u+rwX '\(root)' 2>/dev/null; rm -rf '\(root)'")
    }

    func name(_ s: String) throws -> SecretName { try SecretName(s) }
    func value(_ s: String) -> SecureBytes { SecureBytes(Array(s.utf8)) }
    func string(_ b: SecureBytes) -> String { String(decoding: b.withUnsafeBytes { Array($0) }, as: UTF8.self) }
}

/// The same with a software TPM (swtpm) started per test; a missing swtpm fails the test.
class VaultTPMTestCase: VaultTestCase {
    var tpm: Swtpm!

    override func setUpWithError() throws {
        try super.setUpWithError()
        setenv("TSS2_LOG", "all+NONE", 1)
        tpm = try Swtpm()
    }

    override func tearDownWithError() throws {
        tpm = nil
        try super.tearDownWithError()
    }
}
