import EdgeCrypto
import EdgeTPM
@testable import EdgeVault
import Glibc
import XCTest

/// Issue #16 item 2, in one process: non-regular files are refused or removed without blocking,
/// the key directory gets the same checks on read as on write, an interrupted rotation resumes.
/// (Several processes and the unprivileged owner: Tests/EdgeCLITests/VaultConcurrencyTests.)
final class VaultHardeningTests: VaultTestCase {
    private var directory: String { root + "/vault" }
    private func vault() throws -> Vault { try Vault(directory: directory) }
    private func code(_ body: () throws -> Void) -> VaultErrorCode? {
        do { try body(); return nil } catch { return (error as? VaultError)?.code }
    }

    private static func noTPM() throws(VaultError) -> TPMContext { throw VaultError(.tpmUnavailable, "no TPM in this test") }

    private func keyFile(_ v: Vault) throws -> String {
        v.keyDirectory + "/" + (try XCTUnwrap(try DurableFile.list(v.keyDirectory).first { $0.hasSuffix(".key") }))
    }

    /// A FIFO where an envelope belongs: `get` refuses it, `remove` unlinks it, rotation reports
    /// it and moves the rest; none of them waits for a writer that never comes.
    func testAFIFOInPlaceOfAnEnvelopeIsRefusedWithoutBlocking() throws {
        let v = try vault()
        try v.put(value("kept"), name: name("kept"))
        XCTAssertEqual(mkfifo(directory + "/secrets/fifo.vault", 0o600), 0)
        XCTAssertEqual(code { _ = try v.get(self.name("fifo")) }, .notRegularFile)
        let report = try v.rotate()
        XCTAssertEqual(report.damaged.map(\.name), ["fifo"])
        XCTAssertEqual(report.damaged.first?.error.code, .notRegularFile)
        XCTAssertEqual(string(try vault().get(name("kept"))), "kept")
        try v.remove(name("fifo"))
        XCTAssertFalse(DurableFile.exists(directory + "/secrets/fifo.vault"))
    }

    /// FIFOs in place of `current`, of a key file and of the lock file.
    func testFIFOsInPlaceOfKeyFilesAreRefusedWithoutBlocking() throws {
        let v = try vault()
        try v.put(value("x"), name: name("t"))
        let current = v.keyDirectory + "/current"
        let saved = try DurableFile.read(current, maxBytes: 64)
        XCTAssertEqual(unlink(current), 0)
        XCTAssertEqual(mkfifo(current, 0o600), 0)
        XCTAssertEqual(code { try v.put(self.value("y"), name: self.name("u")) }, .notRegularFile)
        XCTAssertEqual(unlink(current), 0)
        try DurableFile.write(saved, to: current)

        let key = try keyFile(v)
        XCTAssertEqual(unlink(key), 0)
        XCTAssertEqual(mkfifo(key, 0o400), 0)
        XCTAssertEqual(code { _ = try self.vault().get(self.name("t")) }, .insecureKeyFile)

        let lock = directory + "/lock"
        XCTAssertEqual(unlink(lock), 0)
        XCTAssertEqual(mkfifo(lock, 0o600), 0)
        XCTAssertEqual(code { _ = try self.vault() }, .insecureKeyFile)
        XCTAssertEqual(unlink(lock), 0)

        // Wiping with a FIFO where the key was unlinks it instead of opening it for writing.
        try v.wipe()
        XCTAssertFalse(DurableFile.exists(key))
        XCTAssertFalse(DurableFile.exists(directory))
    }

    /// The key directory's ownership, mode and type are checked when secrets are read, not only
    /// when keys are written (a `get` of an existing secret used to skip them).
    func testTheKeyDirectoryIsCheckedOnRead() throws {
        let v = try vault()
        try v.put(value("x"), name: name("t"))
        XCTAssertEqual(chmod(v.keyDirectory, 0o777), 0)
        XCTAssertEqual(code { _ = try v.get(self.name("t")) }, .insecureKeyFile)
        XCTAssertEqual(code { _ = try v.list() }, .insecureKeyFile)
        XCTAssertEqual(chmod(v.keyDirectory, 0o700), 0)
        XCTAssertEqual(string(try v.get(name("t"))), "x")

        XCTAssertEqual(rename(v.keyDirectory, root + "/elsewhere"), 0)
        XCTAssertEqual(symlink(root + "/elsewhere", v.keyDirectory), 0)
        XCTAssertEqual(code { _ = try v.get(self.name("t")) }, .insecureKeyFile)
        XCTAssertEqual(unlink(v.keyDirectory), 0)
        XCTAssertEqual(rename(root + "/elsewhere", v.keyDirectory), 0)

        if geteuid() == 0 {
            // Only root can hand a directory to another user; CI runs as root.
            XCTAssertEqual(chown(v.keyDirectory, 65534, 65534), 0)
            XCTAssertEqual(code { _ = try v.get(self.name("t")) }, .insecureKeyFile)
            XCTAssertEqual(chown(v.keyDirectory, 0, 0), 0)
        }
        XCTAssertEqual(string(try v.get(name("t"))), "x")
    }

    /// Each interrupted rotation used to leave one more generation: rotations that die after
    /// their key became current are finished by the next, which reuses that key.
    func testInterruptedRotationsDoNotPileUpGenerations() throws {
        let v = try vault()
        for i in 0..<3 { try v.put(value("value-\(i)"), name: name("s\(i)")) }
        let ring = KeyRing(directory: v.keyDirectory)
        for _ in 0..<3 {
            // Interrupted: a new current key and nothing moved yet; then again.
            try ring.addKey(backend: .keyfile, tpm: Self.noTPM, pcrs: [])
            let report = try vault().rotate()
            XCTAssertTrue(report.resumed)
            XCTAssertEqual(try vault().keyIDs().count, 1, "one generation after every rotation")
        }
        // A generation that never became current (a rotation that died while writing its key)
        // is not resumed into: the next rotation makes a new key and destroys both.
        let current = try XCTUnwrap(try ring.currentKeyID())
        let orphan = try ring.addKey(backend: .keyfile, tpm: Self.noTPM, pcrs: [])
        try DurableFile.write(Array(Hex.encode(current).utf8), to: v.keyDirectory + "/current")
        let report = try vault().rotate()
        XCTAssertFalse(report.resumed)
        XCTAssertNotEqual(report.newKeyID, Hex.encode(orphan))
        XCTAssertEqual(report.keysDestroyed, 2)
        for i in 0..<3 { XCTAssertEqual(string(try vault().get(name("s\(i)"))), "value-\(i)") }
    }
}
