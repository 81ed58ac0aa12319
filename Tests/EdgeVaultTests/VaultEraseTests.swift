import EdgeCrypto
@testable import EdgeVault
import Glibc
import XCTest

/// Crypto-erase of named secrets (VLT-6, ENR-10) and where the keys live, with the key file
/// backend (the TPM backends: VaultTPMEraseTests).
final class VaultEraseTests: VaultTestCase {
    private var directory: String { root + "/vault" }
    private func vault() throws -> Vault { try Vault(directory: directory) }
    private func shell(_ script: String) { XCTAssertEqual(system(script), 0, script) }

    private func expect(_ code: VaultErrorCode, _ body: () throws -> SecureBytes, naming secret: String, _ why: String,
                        file: StaticString = #filePath, line: UInt = #line) {
        do {
            let opened = try body()
            XCTFail("\(why): opened \(opened.count) bytes", file: file, line: line)
        } catch let error as VaultError {
            XCTAssertEqual(error.code, code, "\(why): \(error.message)", file: file, line: line)
            XCTAssertTrue(error.message.contains(secret), "\(why): the error names the secret: \(error.message)", file: file, line: line)
            XCTAssertFalse(error.message.contains("token-value"), "no value in errors", file: file, line: line)
        } catch {
            XCTFail("\(why): \(error)", file: file, line: line)
        }
    }

    /// The ENR-10 case: tokens are erased, a copy of the vault directory made before is restored
    /// in place, and it cannot open them (nor anything else it holds); before the restore, the
    /// secrets not erased still open in the live vault.
    func testARestoredCopyOfTheVaultDirectoryCannotOpenErasedSecrets() throws {
        let v = try vault()
        try v.put(value("token-value-access"), name: name("enrollment.1.access-token"))
        try v.put(value("token-value-refresh"), name: name("enrollment.1.refresh-token"))
        try v.put(value("token-value-kept"), name: name("sync.token"))
        let deviceID = try v.deviceID()
        shell("cp -a '\(directory)' '\(root)/copy'")

        let report = try v.erase([name("enrollment.1.access-token"), name("enrollment.1.refresh-token")])
        XCTAssertEqual(report.erased, 2)
        XCTAssertEqual(report.rewritten, 2, "sync.token and the device id moved to the new key")
        XCTAssertEqual(report.keysDestroyed, 1)
        XCTAssertEqual(report.damaged, [])
        XCTAssertEqual(try v.keyIDs().map(\.id), [report.newKeyID])
        XCTAssertEqual(string(try vault().get(name("sync.token"))), "token-value-kept")
        XCTAssertEqual(try vault().deviceID(), deviceID)
        expect(.notFound, { try vault().get(name("enrollment.1.access-token")) }, naming: "enrollment.1.access-token", "live vault")

        // Restore the copy over the vault directory, as a backup restored in place would be.
        shell("rm -rf '\(directory)' && cp -a '\(root)/copy' '\(directory)'")
        for secret in ["enrollment.1.access-token", "enrollment.1.refresh-token"] {
            expect(.unknownKey, { try vault().get(name(secret)) }, naming: secret, "restored copy, new Vault")
            // The instance that erased had derived the old key; it must not open the copy either.
            expect(.unknownKey, { try v.get(name(secret)) }, naming: secret, "restored copy, the erasing Vault")
        }
        XCTAssertThrowsError(try vault().deviceID()) { XCTAssertEqual(($0 as? VaultError)?.code, .unknownKey) }
    }

    /// Another process that derived the old generation's key before the erase does not keep
    /// opening a restored copy with it: the cache is used only while the generation exists.
    func testACachedKeyInAnotherInstanceDoesNotOutliveTheErase() throws {
        let other = try vault()
        try other.put(value("token-value-a"), name: name("a"))
        XCTAssertEqual(string(try other.get(name("a"))), "token-value-a")
        shell("cp -a '\(directory)' '\(root)/copy'")
        _ = try vault().erase([name("a")])
        shell("rm -rf '\(directory)' && cp -a '\(root)/copy' '\(directory)'")
        expect(.unknownKey, { try other.get(name("a")) }, naming: "a", "an instance with the old key cached")
    }

    func testKeysLiveOutsideTheVaultDirectory() throws {
        let v = try vault()
        try v.put(value("x"), name: name("t"))
        XCTAssertEqual(v.keyDirectory, directory + "-keys")
        XCTAssertFalse(DurableFile.exists(directory + "/keys"))
        XCTAssertTrue(try DurableFile.list(v.keyDirectory).contains { $0.hasSuffix(".key") })
        XCTAssertEqual(try Vault(directory: directory + "/", keyDirectory: root + "/k/").keyDirectory, root + "/k")
        for inside in [directory, directory + "/keys", directory + "/a/b"] {
            XCTAssertThrowsError(try Vault(directory: root + "/other", keyDirectory: inside.replacingOccurrences(of: directory, with: root + "/other"))) {
                XCTAssertEqual(($0 as? VaultError)?.code, .insecureKeyFile, inside)
            }
        }
    }

    /// A vault from before the move (keys in `<vault>/keys`) is moved on open and keeps working;
    /// keys in both places are never merged (that is a pre-move copy restored over the vault,
    /// after a rotation); a legacy directory holding only copies of keys the key directory has
    /// (what a move interrupted after its commit leaves) is erased.
    func testLegacyKeysAreMovedOnOpenAndNeverMerged() throws {
        let v = try vault()
        try v.put(value("token-value-legacy"), name: name("t"))
        shell("mv '\(v.keyDirectory)' '\(directory)/keys'")
        let moved = try vault()
        XCTAssertEqual(moved.movedKeys, [directory + "/keys"])
        XCTAssertEqual(string(try moved.get(name("t"))), "token-value-legacy")
        XCTAssertFalse(DurableFile.exists(directory + "/keys"))
        XCTAssertTrue(try DurableFile.list(v.keyDirectory).contains("current"))

        // A copy of the keys from before a rotation, restored where the old edge kept them.
        shell("cp -a '\(v.keyDirectory)' '\(root)/keys-before-rotation'")
        _ = try vault().rotate()
        shell("cp -a '\(root)/keys-before-rotation' '\(directory)/keys'")
        XCTAssertThrowsError(try vault()) { XCTAssertEqual(($0 as? VaultError)?.code, .keyConflict) }
        shell("rm -rf '\(directory)/keys'")
        XCTAssertEqual(string(try vault().get(name("t"))), "token-value-legacy")

        shell("cp -a '\(v.keyDirectory)' '\(directory)/keys'")
        XCTAssertEqual(string(try vault().get(name("t"))), "token-value-legacy")
        XCTAssertFalse(DurableFile.exists(directory + "/keys"), "identical copies are erased, not merged")
    }

    /// The key directory given by another name than the legacy one it is (`.` in the path): no
    /// move onto itself, whose "originals" would be the keys.
    func testTheKeyDirectoryByAnotherNameIsNotMovedOntoItself() throws {
        let keys = root + "/vault-keys"
        let v = try Vault(directory: directory, keyDirectory: keys)
        try v.put(value("token-value-kept"), name: name("t"))
        let aliased = try Vault(directory: directory, keyDirectory: root + "/./vault-keys", legacyKeyDirectories: [keys])
        XCTAssertEqual(aliased.movedKeys, [])
        XCTAssertEqual(string(try aliased.get(name("t"))), "token-value-kept")
        XCTAssertTrue(try DurableFile.list(keys).contains("current"))
    }

    /// A move across file systems (EXDEV, as between systemd's bind mounts) interrupted at either
    /// side of its commit (the copied `current`) resumes at the next open and loses nothing.
    func testAnInterruptedMoveAcrossFileSystemsResumes() throws {
        let keys = try otherFileSystemDirectory("resume")
        defer { _ = system("chmod -R u+rwX '\(keys)' 2>/dev/null; rm -rf '\(keys)'") }
        let legacy = root + "/old-keys"
        let v = try Vault(directory: directory, keyDirectory: legacy)
        try v.put(value("token-value-resumed"), name: name("t"))
        let files = try DurableFile.list(legacy)
        let keyFile = try XCTUnwrap(files.first { $0.hasSuffix(".key") })

        // Interrupted before the commit: one key copied, no `current` in the key directory.
        shell("mkdir -m 700 '\(keys)' && cp -p '\(legacy)/\(keyFile)' '\(keys)/'")
        let resumed = try Vault(directory: directory, keyDirectory: keys, legacyKeyDirectories: [legacy])
        XCTAssertEqual(resumed.movedKeys, [legacy])
        XCTAssertEqual(string(try resumed.get(name("t"))), "token-value-resumed")
        XCTAssertFalse(DurableFile.exists(legacy))
        XCTAssertEqual(try DurableFile.list(keys), files)

        // Interrupted after the commit: everything copied, the originals not yet erased.
        shell("mkdir -m 700 '\(legacy)' && cp -p '\(keys)'/* '\(legacy)/'")
        let finished = try Vault(directory: directory, keyDirectory: keys, legacyKeyDirectories: [legacy])
        XCTAssertEqual(string(try finished.get(name("t"))), "token-value-resumed")
        XCTAssertFalse(DurableFile.exists(legacy))
        XCTAssertEqual(try DurableFile.list(keys), files)
    }

    /// The legacy move across file systems (rename gives EXDEV): the key files are copied, the
    /// originals crypto-erased, and the vault opens from the new place. /dev/shm (tmpfs) is
    /// another file system than /tmp here; the test fails if it is not.
    func testLegacyKeysMoveAcrossFileSystems() throws {
        let keys = try otherFileSystemDirectory("keys")
        defer { _ = system("chmod -R u+rwX '\(keys)' 2>/dev/null; rm -rf '\(keys)'") }
        let v = try vault()
        try v.put(value("token-value-moved"), name: name("t"))
        shell("mv '\(v.keyDirectory)' '\(directory)/keys'")
        let moved = try Vault(directory: directory, keyDirectory: keys)
        XCTAssertEqual(string(try moved.get(name("t"))), "token-value-moved")
        XCTAssertFalse(DurableFile.exists(directory + "/keys"))
        let files = try DurableFile.list(keys)
        XCTAssertTrue(files.contains("current") && files.contains { $0.hasSuffix(".key") }, "\(files)")
        var info = stat()
        let keyFile = keys + "/" + (try XCTUnwrap(files.first { $0.hasSuffix(".key") }))
        XCTAssertEqual(lstat(keyFile, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o400)
    }

    func testEraseSkipsAbsentNamesAndRefusesTheDeviceID() throws {
        let v = try vault()
        try v.put(value("token-value-1"), name: name("a"))
        XCTAssertEqual(try v.erase([name("a"), name("a"), name("never-there")]).erased, 1)
        let again = try v.erase([name("a")])
        XCTAssertEqual(again.erased, 0)
        XCTAssertEqual(again.keysDestroyed, 1, "an erase always moves to a fresh generation")
        XCTAssertThrowsError(try v.erase([name(Vault.deviceIDName)])) { XCTAssertEqual(($0 as? VaultError)?.code, .invalidName) }
    }

    /// A damaged envelope is reported by name and does not stop the erase (or the rotation).
    func testADamagedEnvelopeIsReportedAndDoesNotBlockTheOthers() throws {
        let v = try vault()
        for i in 0..<3 { try v.put(value("token-value-\(i)"), name: name("s\(i)")) }
        let damagedPath = directory + "/secrets/s1.vault"
        var bytes = try DurableFile.read(damagedPath, maxBytes: 1 << 20)
        bytes[bytes.count - 1] ^= 1
        try DurableFile.write(bytes, to: damagedPath)

        let rotation = try v.rotate()
        XCTAssertEqual(rotation.damaged.map(\.name), ["s1"])
        XCTAssertEqual(rotation.damaged.first?.error.code, .tampered)
        XCTAssertEqual(rotation.rewritten, 3, "s0, s2 and the device id")
        XCTAssertEqual(rotation.keysDestroyed, 1)
        XCTAssertFalse("\(rotation)".contains("token-value"))
        for i in [0, 2] { XCTAssertEqual(string(try vault().get(name("s\(i)"))), "token-value-\(i)") }

        let erase = try v.erase([name("s0")])
        XCTAssertEqual(erase.damaged.map(\.name), ["s1"])
        XCTAssertEqual(erase.damaged.first?.error.code, .unknownKey)
        XCTAssertEqual(string(try vault().get(name("s2"))), "token-value-2")
    }

    /// A path on another file system than the vault's (/dev/shm, tmpfs, against /tmp): a move
    /// there is a copy (EXDEV), as between systemd's StateDirectory bind mounts.
    private func otherFileSystemDirectory(_ suffix: String) throws -> String {
        var shm = stat(), tmp = stat()
        XCTAssertEqual(stat("/dev/shm", &shm), 0)
        XCTAssertEqual(stat(root, &tmp), 0)
        XCTAssertNotEqual(shm.st_dev, tmp.st_dev, "/dev/shm and /tmp must be different file systems for this test")
        return "/dev/shm/" + (root.split(separator: "/").last.map(String.init) ?? "edge-vault-erase") + "-" + suffix
    }
}
