import EdgeCrypto
import EdgeTPM
@testable import EdgeVault
import Glibc
import XCTest

final class VaultTests: VaultTestCase {
    private func vault(_ sub: String = "v") throws -> Vault { try Vault(directory: root + "/" + sub) }
    private func mode(_ path: String) -> mode_t { var st = stat(); _ = lstat(path, &st); return st.st_mode & 0o777 }

    func testPutGetAcrossInstances() throws {
        try vault().put(value("s3cret-token"), name: name("access-token"))
        XCTAssertEqual(string(try vault().get(name("access-token"))), "s3cret-token")
        try vault().put(value("second"), name: name("access-token"))
        XCTAssertEqual(string(try vault().get(name("access-token"))), "second")
    }

    func testPermissionsOnDisk() throws {
        let v = try vault()
        try v.put(value("x"), name: name("a"))
        XCTAssertEqual(mode(v.directory), 0o700)
        XCTAssertEqual(mode(v.keyDirectory), 0o700)
        XCTAssertEqual(mode(v.directory + "/secrets/a.vault"), 0o600)
        let keyFile = try XCTUnwrap(try DurableFile.list(v.keyDirectory).first { $0.hasSuffix(".key") })
        XCTAssertEqual(mode(v.keyDirectory + "/" + keyFile), 0o400)
    }

    func testDeviceIDIsAStableUUIDv4() throws {
        let id = try vault().deviceID()
        XCTAssertEqual(try vault().deviceID(), id)
        let pattern = #/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/#
        XCTAssertNotNil(id.wholeMatch(of: pattern), id)
        XCTAssertNotEqual(try vault("other").deviceID(), id)
    }

    func testNamesAreRestricted() {
        for bad in ["", "A", "../x", "a/b", ".hidden", "-x", String(repeating: "a", count: 65), "a b", "ü"] {
            XCTAssertThrowsError(try SecretName(bad), bad) { XCTAssertEqual(($0 as? VaultError)?.code, .invalidName) }
        }
        XCTAssertNoThrow(try SecretName("enrollment.ab.access-token_1"))
    }

    func testMissingSecret() throws {
        XCTAssertThrowsError(try vault().get(name("nope"))) { XCTAssertEqual(($0 as? VaultError)?.code, .notFound) }
        XCTAssertThrowsError(try vault().remove(name("nope"))) { XCTAssertEqual(($0 as? VaultError)?.code, .notFound) }
    }

    /// VLT-4: one flipped bit anywhere in the file (every header field, nonce, ciphertext, tag)
    /// gives an error, never a value.
    func testEveryFlippedBitIsDetected() throws {
        let v = try vault()
        try v.put(value("token-value-123"), name: name("t"))
        let path = v.directory + "/secrets/t.vault"
        let original = try DurableFile.read(path, maxBytes: 1 << 20)
        for i in original.indices {
            for bit in [0, 7] {
                var bytes = original
                bytes[i] ^= UInt8(1 << bit)
                try DurableFile.write(bytes, to: path)
                XCTAssertThrowsError(try vault().get(name("t")), "byte \(i) bit \(bit)") { error in
                    let code = (error as? VaultError)?.code
                    XCTAssertTrue([.tampered, .unsupportedEnvelope, .truncated, .unknownKey].contains(code), "byte \(i): \(String(describing: code))")
                    XCTAssertFalse("\(error)".contains("token-value-123"))
                }
            }
        }
        try DurableFile.write(original, to: path)
        XCTAssertEqual(string(try vault().get(name("t"))), "token-value-123")
    }

    func testTruncationAtEveryLength() throws {
        let v = try vault()
        try v.put(value("abc"), name: name("t"))
        let path = v.directory + "/secrets/t.vault"
        let original = try DurableFile.read(path, maxBytes: 1 << 20)
        for n in 0..<original.count {
            try DurableFile.write(Array(original.prefix(n)), to: path)
            XCTAssertThrowsError(try vault().get(name("t")), "length \(n)")
        }
        try DurableFile.write(original + [0], to: path)
        XCTAssertThrowsError(try vault().get(name("t"))) { XCTAssertEqual(($0 as? VaultError)?.code, .tampered) }
    }

    func testRenamedFileDoesNotOpen() throws {
        let v = try vault()
        try v.put(value("for-a"), name: name("a"))
        try DurableFile.write(try DurableFile.read(v.directory + "/secrets/a.vault", maxBytes: 1 << 20), to: v.directory + "/secrets/b.vault")
        XCTAssertThrowsError(try vault().get(name("b"))) { XCTAssertEqual(($0 as? VaultError)?.code, .tampered) }
    }

    func testAnotherDeviceWithTheSameKeysDoesNotOpen() throws {
        // Copy keys and one secret into a second vault that has its own device id.
        let a = try vault("a")
        try a.put(value("secret"), name: name("t"))
        let b = try vault("b")
        _ = try b.deviceID()
        _ = system("rm -rf '\(b.keyDirectory)' && cp -a '\(a.keyDirectory)' '\(b.keyDirectory)' && cp -a '\(a.directory)/secrets/t.vault' '\(b.directory)/secrets/'")
        // b's device-id secret was sealed under b's old key: give it a new one under a's keys.
        try DurableFile.remove(b.directory + "/secrets/device-id.vault")
        XCTAssertNotEqual(try vault("b").deviceID(), try vault("a").deviceID())
        XCTAssertThrowsError(try vault("b").get(name("t"))) { XCTAssertEqual(($0 as? VaultError)?.code, .tampered) }
    }

    func testWrongHostKey() throws {
        let v = try vault()
        try v.put(value("x"), name: name("t"))
        let keyFile = v.keyDirectory + "/" + (try XCTUnwrap(try DurableFile.list(v.keyDirectory).first { $0.hasSuffix(".key") }))
        try DurableFile.write(try Random.bytes(32), to: keyFile, mode: 0o400)
        XCTAssertThrowsError(try vault().get(name("t"))) { XCTAssertEqual(($0 as? VaultError)?.code, .tampered) }
    }

    func testInsecureKeyFilesAreRefused() throws {
        let v = try vault()
        try v.put(value("x"), name: name("t"))
        let keyFile = v.keyDirectory + "/" + (try XCTUnwrap(try DurableFile.list(v.keyDirectory).first { $0.hasSuffix(".key") }))
        func expectRefusal(_ why: String) {
            do {
                _ = try vault().get(name("t"))
                XCTFail("\(why): opened")
            } catch {
                XCTAssertEqual((error as? VaultError)?.code, .insecureKeyFile, why)
            }
        }
        chmod(keyFile, 0o440); expectRefusal("group-readable")
        chmod(keyFile, 0o600); expectRefusal("owner-writable")
        chmod(keyFile, 0o400)
        link(keyFile, root + "/hardlink"); expectRefusal("hard link")
        unlink(root + "/hardlink")
        let saved = try DurableFile.read(keyFile, maxBytes: 64)
        try DurableFile.write(saved + [0], to: keyFile, mode: 0o400); expectRefusal("wrong size")
        try DurableFile.remove(keyFile)
        symlink(root + "/elsewhere", keyFile); expectRefusal("symlink")
        unlink(keyFile)
        try DurableFile.write(saved, to: keyFile, mode: 0o400)
        if geteuid() == 0 {
            // Only root can hand a file to another user; CI runs as root.
            chown(keyFile, 65534, 65534); expectRefusal("owned by nobody")
            chown(keyFile, 0, 0)
        }
        XCTAssertEqual(string(try vault().get(name("t"))), "x")
        chmod(v.directory, 0o755)
        XCTAssertThrowsError(try vault()) { XCTAssertEqual(($0 as? VaultError)?.code, .insecureKeyFile) }
        chmod(v.directory, 0o700)
    }

    func testRotationRewritesEverythingAndDestroysOldKeys() throws {
        let v = try vault()
        for i in 0..<3 { try v.put(value("value-\(i)"), name: name("s\(i)")) }
        let before = try v.keyIDs().map(\.id)
        let report = try v.rotate()
        XCTAssertEqual(report.rewritten, 4, "three secrets and the device id")
        XCTAssertEqual(report.keysDestroyed, 1)
        XCTAssertEqual(try v.keyIDs().map(\.id), [report.newKeyID])
        XCTAssertFalse(before.contains(report.newKeyID))
        for i in 0..<3 { XCTAssertEqual(string(try vault().get(name("s\(i)"))), "value-\(i)") }
        XCTAssertTrue(try v.list().allSatisfy { $0.keyID == report.newKeyID })
    }

    /// VLT-5: a rotation interrupted after the new key exists and some envelopes were rewritten
    /// loses nothing; the next rotation finishes.
    func testInterruptedRotationLosesNothing() throws {
        let v = try vault()
        for i in 0..<3 { try v.put(value("value-\(i)"), name: name("s\(i)")) }
        // Interrupt: a new current key, only one secret rewritten under it.
        try KeyRing(directory: v.keyDirectory).addKey(backend: .keyfile, tpm: { () throws(VaultError) -> TPMContext in
            throw VaultError(.tpmUnavailable, "no TPM in this test")
        }, pcrs: [])
        try vault().put(value("value-0"), name: name("s0"))
        XCTAssertEqual(Set(try v.list().map(\.keyID)).count, 2)
        for i in 0..<3 { XCTAssertEqual(string(try vault().get(name("s\(i)"))), "value-\(i)") }
        let report = try vault().rotate()
        XCTAssertTrue(report.resumed, "the interrupted rotation's key is reused, not piled on")
        XCTAssertEqual(report.keysDestroyed, 1)
        XCTAssertEqual(try vault().keyIDs().count, 1)
        for i in 0..<3 { XCTAssertEqual(string(try vault().get(name("s\(i)"))), "value-\(i)") }
    }

    /// VLT-6: after a wipe, a backup copy of an envelope (and of the secrets directory) opens
    /// nothing, because the key material is gone.
    func testWipeIsCryptoErase() throws {
        let v = try vault()
        try v.put(value("token"), name: name("t"))
        _ = system("cp -a '\(v.directory)/secrets' '\(root)/backup'")
        try v.wipe()
        XCTAssertFalse(DurableFile.exists(v.directory))
        let fresh = try vault()
        _ = system("cp -a '\(root)/backup/t.vault' '\(fresh.directory)/secrets/t.vault'")
        XCTAssertThrowsError(try fresh.get(name("t"))) { XCTAssertEqual(($0 as? VaultError)?.code, .unknownKey) }
    }

    func testStatusListsNamesWithoutValues() throws {
        let v = try vault()
        try v.put(value("very-secret"), name: name("t"), notAfter: 2_000_000_000)
        let infos = try v.list()
        XCTAssertEqual(Set(infos.map(\.name)), ["t", "device-id"])
        let t = try XCTUnwrap(infos.first { $0.name == "t" })
        XCTAssertEqual(t.backend, .keyfile)
        XCTAssertEqual(t.notAfter, 2_000_000_000)
        XCTAssertFalse("\(infos)".contains("very-secret"))
    }

    func testEnvelopeRefusesUnknownVersionsAndBackendsBeforeCrypto() throws {
        let v = try vault()
        try v.put(value("x"), name: name("t"))
        let path = v.directory + "/secrets/t.vault"
        var bytes = try DurableFile.read(path, maxBytes: 1 << 20)
        bytes[4] = 9
        XCTAssertThrowsError(try Envelope(decoding: bytes)) { XCTAssertEqual(($0 as? VaultError)?.code, .unsupportedEnvelope) }
        bytes[4] = 1
        bytes[5] = 77
        XCTAssertThrowsError(try Envelope(decoding: bytes)) { XCTAssertEqual(($0 as? VaultError)?.code, .unsupportedEnvelope) }
    }
}
