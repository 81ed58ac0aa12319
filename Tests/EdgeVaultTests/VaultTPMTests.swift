import EdgeCrypto
import EdgeTestSupport
import EdgeTPM
@testable import EdgeVault
import Glibc
import XCTest

/// The tpm2 and keyfile+tpm2 backends against a real software TPM (swtpm, started per test).
final class VaultTPMTests: VaultTPMTestCase {
    private func vault(_ backend: VaultBackendChoice, tcti: String? = nil, pcrs: [Int] = [], sub: String = "v") throws -> Vault {
        try Vault(directory: root + "/" + sub, backend: backend, tcti: tcti ?? tpm.tcti, pcrs: pcrs)
    }

    private func code(_ body: () throws -> Void) -> VaultErrorCode? {
        do { try body(); return nil } catch { return (error as? VaultError)?.code }
    }

    func testBothTPMBackendsRoundTripAndRecordTheirBackend() throws {
        for (sub, choice, backend) in [("t", VaultBackendChoice.tpm2, VaultBackend.tpm2), ("kt", .keyfileTPM2, .keyfileTPM2)] {
            try vault(choice, sub: sub).put(value("token-\(sub)"), name: SecretName("access-token"))
            XCTAssertEqual(string(try vault(choice, sub: sub).get(SecretName("access-token"))), "token-\(sub)")
            XCTAssertEqual(try vault(choice, sub: sub).list().map(\.backend), [backend, backend])
        }
    }

    func testAutoPicksKeyfilePlusTPMWhenATPMAnswersAndKeyfileOtherwise() throws {
        let with = try vault(.auto, sub: "a")
        XCTAssertEqual(with.backend, .keyfileTPM2)
        XCTAssertTrue(with.backendReason.contains("TPM found"))
        let without = try vault(.auto, tcti: "swtpm:path=\(root)/no-such.sock", sub: "b")
        XCTAssertEqual(without.backend, .keyfile)
        XCTAssertTrue(without.backendReason.contains("no TPM"), without.backendReason)
        try without.put(value("x"), name: SecretName("s"))
        XCTAssertEqual(string(try without.get(SecretName("s"))), "x")
    }

    /// keyfile+tpm2: the file without the TPM, or the TPM without the file, opens nothing.
    func testBothFactorsAreNeeded() throws {
        let v = try vault(.keyfileTPM2)
        try v.put(value("secret"), name: SecretName("s"))
        // Another TPM (fresh swtpm state) with the same files.
        let other = try Swtpm()
        XCTAssertEqual(code { _ = try self.vault(.keyfileTPM2, tcti: other.tcti).get(SecretName("s")) }, .wrongTPM)
        // The TPM is gone.
        tpm.stop()
        XCTAssertEqual(code { _ = try self.vault(.keyfileTPM2).get(SecretName("s")) }, .tpmUnavailable)
        try tpm.start()
        XCTAssertEqual(string(try vault(.keyfileTPM2).get(SecretName("s"))), "secret")
        // The key file is gone: the generation now looks like tpm2 alone, which the envelope refuses.
        let keyFile = try XCTUnwrap(try DurableFile.list(v.keyDirectory).first { $0.hasSuffix(".key") })
        try DurableFile.remove(v.keyDirectory + "/" + keyFile)
        XCTAssertEqual(code { _ = try self.vault(.keyfileTPM2).get(SecretName("s")) }, .tampered)
    }

    func testChangedPCRIsReportedAndUnboundKeysAreUnaffected() throws {
        try vault(.tpm2, pcrs: [16], sub: "bound").put(value("bound"), name: SecretName("s"))
        try vault(.tpm2, sub: "free").put(value("free"), name: SecretName("s"))
        try TPMContext(tcti: tpm.tcti).extendPCR(16, with: SHA256.hash(Array("something else booted".utf8)))
        XCTAssertEqual(code { _ = try self.vault(.tpm2, pcrs: [16], sub: "bound").get(SecretName("s")) }, .pcrMismatch)
        XCTAssertEqual(string(try vault(.tpm2, sub: "free").get(SecretName("s"))), "free")
    }

    func testRotationMovesAKeyfileVaultOntoTheTPM() throws {
        try vault(.keyfile).put(value("v"), name: SecretName("s"))
        let report = try vault(.keyfileTPM2).rotate()
        XCTAssertEqual(report.keysDestroyed, 1)
        XCTAssertEqual(Set(try vault(.keyfileTPM2).list().map(\.backend)), [.keyfileTPM2])
        XCTAssertEqual(string(try vault(.keyfileTPM2).get(SecretName("s"))), "v")
    }

    func testWipeDestroysTheSealedKey() throws {
        let v = try vault(.tpm2)
        try v.put(value("v"), name: SecretName("s"))
        _ = system("cp -a '\(v.directory)/secrets' '\(root)/backup'")
        try v.wipe()
        let fresh = try vault(.tpm2)
        _ = system("cp '\(root)/backup/s.vault' '\(fresh.directory)/secrets/'")
        XCTAssertEqual(code { _ = try fresh.get(SecretName("s")) }, .unknownKey)
    }
}
