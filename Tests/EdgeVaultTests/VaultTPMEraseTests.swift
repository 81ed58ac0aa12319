import EdgeCrypto
import EdgeTestSupport
@testable import EdgeVault
import Glibc
import XCTest

/// Crypto-erase with the TPM backends against a real software TPM (swtpm, started per test;
/// missing swtpm fails the test): the sealed blob of every older generation is destroyed, so a
/// restored copy of the vault directory opens nothing it held, while this TPM is still there.
final class VaultTPMEraseTests: VaultTPMTestCase {

    private func eraseThenRestore(_ choice: VaultBackendChoice, expecting backend: VaultBackend) throws {
        let directory = root + "/" + choice.rawValue
        func vault() throws -> Vault { try Vault(directory: directory, backend: choice, tcti: tpm.tcti) }
        let v = try vault()
        try v.put(SecureBytes(Array("token-value-access".utf8)), name: SecretName("access-token"))
        try v.put(SecureBytes(Array("token-value-kept".utf8)), name: SecretName("kept"))
        XCTAssertEqual(try v.keyIDs().first?.backend, backend)
        let blobs = try DurableFile.list(v.keyDirectory).filter { $0.hasSuffix(".tpm") }
        XCTAssertEqual(blobs.count, 1, "one sealed blob for the one generation")
        XCTAssertEqual(system("cp -a '\(directory)' '\(root)/copy-\(choice.rawValue)'"), 0)

        let report = try v.erase([SecretName("access-token")])
        XCTAssertEqual(report.erased, 1)
        XCTAssertEqual(report.keysDestroyed, 1)
        XCTAssertFalse(DurableFile.exists(v.keyDirectory + "/" + blobs[0]), "the old sealed blob is gone")
        XCTAssertEqual(string(try vault().get(SecretName("kept"))), "token-value-kept")

        XCTAssertEqual(system("rm -rf '\(directory)' && cp -a '\(root)/copy-\(choice.rawValue)' '\(directory)'"), 0)
        for secret in ["access-token", "kept"] {
            do {
                let opened = try vault().get(SecretName(secret))
                XCTFail("\(choice.rawValue): the restored copy opened \(secret) (\(opened.count) bytes)")
            } catch let error as VaultError {
                XCTAssertEqual(error.code, .unknownKey, "\(choice.rawValue) \(secret): \(error.message)")
                XCTAssertTrue(error.message.contains(secret), error.message)
            }
        }
    }

    func testARestoredCopyCannotOpenErasedSecretsWithKeyfilePlusTPM() throws {
        try eraseThenRestore(.keyfileTPM2, expecting: .keyfileTPM2)
    }

    func testARestoredCopyCannotOpenErasedSecretsWithTPMAlone() throws {
        try eraseThenRestore(.tpm2, expecting: .tpm2)
    }
}
