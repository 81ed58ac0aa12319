import EdgeCrypto
import EdgeTPM
import Glibc

/// The vault's keys (VLT-1, VLT-5), one generation per key id, in the key directory (outside
/// the vault directory since crypto-erase; see `Vault.init` for why and where):
/// - `<id>.key`: a 32-byte host key (mode 0400, directory 0700): the keyfile part;
/// - `<id>.tpm`: a random 32-byte data key sealed by the TPM (EdgeTPM blob): the tpm2 part;
/// - `current`: the id (and so the backend) new envelopes use.
/// A generation's backend follows from which parts exist. Older generations stay, decrypt-only,
/// until rotation has rewritten every envelope that uses them.
///
/// Decision: the sealed blob lives with the key generation, not in every envelope (vault.md
/// lists "TPM blob" among envelope header fields): one unseal per generation instead of one per
/// secret, and crypto-erase destroys one file. Envelopes carry the PCR mask in their
/// (authenticated) backend header and name the generation by key id.
struct KeyRing {
    static let keyByteCount = 32
    let directory: String

    init(directory: String) {
        self.directory = directory
    }

    /// Where keys lived before they moved out of the vault directory.
    static func legacyDirectory(ofVault vaultDirectory: String) -> String { vaultDirectory + "/keys" }

    private var currentPath: String { directory + "/current" }
    private func keyPath(_ id: [UInt8]) -> String { directory + "/" + Hex.encode(id) + ".key" }
    private func blobPath(_ id: [UInt8]) -> String { directory + "/" + Hex.encode(id) + ".tpm" }

    /// The current generation's id, nil when the vault has no key yet.
    func currentKeyID() throws(VaultError) -> [UInt8]? {
        try DurableFile.ensurePrivateDirectory(directory)
        guard DurableFile.exists(currentPath) else { return nil }
        let text = try DurableFile.read(currentPath, maxBytes: 64)
        guard let id = Hex.decode(String(decoding: text, as: UTF8.self)), id.count == Envelope.keyIDByteCount else {
            throw VaultError(.insecureKeyFile, "\(currentPath) is damaged", context: ["path": currentPath])
        }
        return id
    }

    /// Which backend a generation belongs to, from the parts present.
    func backend(of id: [UInt8]) throws(VaultError) -> VaultBackend {
        switch (DurableFile.exists(keyPath(id)), DurableFile.exists(blobPath(id))) {
        case (true, false): return .keyfile
        case (false, true): return .tpm2
        case (true, true): return .keyfileTPM2
        case (false, false):
            throw VaultError(.unknownKey, "the key this secret was sealed with is not in this vault (wiped, rotated away, or another host)",
                             context: ["key_id": Hex.encode(id)])
        }
    }

    /// Creates a new generation for `backend` and makes it current.
    @discardableResult
    func addKey(backend: VaultBackend, tpm: () throws(VaultError) -> TPMContext, pcrs: [Int]) throws(VaultError) -> [UInt8] {
        try DurableFile.ensurePrivateDirectory(directory)
        let id = try VaultRandom.bytes(Envelope.keyIDByteCount)
        if backend != .tpm2 {
            // Written read-only for the owner; the durable write sets the mode before the
            // rename, so the key is never visible with looser permissions.
            let key = try VaultRandom.secret(Self.keyByteCount)
            try key.withUnsafeBytes { (raw) throws(VaultError) in try DurableFile.write(Array(raw), to: keyPath(id), mode: 0o400) }
        }
        if backend != .keyfile {
            var dataKey = try VaultRandom.bytes(Self.keyByteCount)
            defer { for i in dataKey.indices { dataKey[i] = 0 } }
            let blob: [UInt8]
            let context = try tpm()
            do { blob = try context.seal(dataKey, pcrs: pcrs) } catch { throw VaultError(from: error) }
            try DurableFile.write(blob, to: blobPath(id), mode: 0o400)
        }
        try DurableFile.write(Array(Hex.encode(id).utf8), to: currentPath, mode: 0o600)
        return id
    }

    /// The input key material of a generation: the host key, the unsealed data key, or both
    /// concatenated (keyfile+tpm2: a copied disk without the TPM, or the TPM without the file,
    /// opens nothing).
    func keyMaterial(_ id: [UInt8], tpm: () throws(VaultError) -> TPMContext) throws(VaultError) -> SecureBytes {
        let backend = try backend(of: id)
        var parts: [UInt8] = []
        defer { for i in parts.indices { parts[i] = 0 } }
        if backend != .tpm2 {
            let p = keyPath(id)
            var info = stat()
            guard lstat(p, &info) == 0 else { throw DurableFile.failure("stat", p) }
            try Self.checkKeyFile(p, info)
            parts += try DurableFile.read(p, maxBytes: Self.keyByteCount + 1)
        }
        if backend != .keyfile {
            let p = blobPath(id)
            var info = stat()
            guard lstat(p, &info) == 0 else { throw DurableFile.failure("stat", p) }
            guard info.st_mode & S_IFMT == S_IFREG, info.st_nlink == 1, info.st_uid == geteuid(), info.st_mode & 0o377 == 0 else {
                throw VaultError(.insecureKeyFile, "refusing sealed key \(p): not an owner-only, single-linked regular file", context: ["path": p])
            }
            let blob = try DurableFile.read(p, maxBytes: 16 * 1024)
            let context = try tpm()
            do { parts += try context.unseal(blob) } catch { throw VaultError(from: error) }
        }
        // The key material lives on only in the SecureBytes (its own non-dumpable pages).
        let material = SecureBytes(parts)
        SecureWipe.wipe(&parts)
        return material
    }

    /// VLT-1 refusals: only a regular, single-linked, owner-only, owner-owned file of the right
    /// size is a host key.
    static func checkKeyFile(_ p: String, _ info: stat) throws(VaultError) {
        func refuse(_ why: String) -> VaultError { VaultError(.insecureKeyFile, "refusing key file \(p): \(why)", context: ["path": p]) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw refuse("not a regular file") }
        guard info.st_nlink == 1 else { throw refuse("it has \(info.st_nlink) hard links") }
        guard info.st_uid == geteuid() else { throw refuse("it belongs to another user") }
        guard info.st_mode & 0o377 == 0 else { throw refuse("mode \(String(info.st_mode & 0o777, radix: 8)) is looser than 400") }
        guard Int(info.st_size) == keyByteCount else { throw refuse("it is \(info.st_size) bytes, not \(keyByteCount)") }
    }

    /// Ids of every generation present.
    func allKeyIDs() throws(VaultError) -> [[UInt8]] {
        var ids: [[UInt8]] = []
        for name in try DurableFile.list(directory) where name.hasSuffix(".key") || name.hasSuffix(".tpm") {
            if let id = Hex.decode(String(name.dropLast(4))), !ids.contains(id) { ids.append(id) }
        }
        return ids
    }

    /// Crypto-erase of one generation (VLT-6): its host key and its sealed blob.
    func destroyKey(_ id: [UInt8]) throws(VaultError) {
        if DurableFile.exists(keyPath(id)) { try DurableFile.destroy(keyPath(id)) }
        if DurableFile.exists(blobPath(id)) { try DurableFile.destroy(blobPath(id)) }
    }

    func destroyAll() throws(VaultError) {
        for id in try allKeyIDs() { try destroyKey(id) }
        try DurableFile.remove(currentPath)
    }

    /// Moves the generations an older edge kept in `legacy` (`<vault>/keys`, or the station's
    /// old default `<state>/vault-keys`) into this ring's directory; called under the vault lock
    /// when a vault is opened, so two processes opening at once move them once. Returns whether
    /// anything moved.
    ///
    /// - A rename when the key directory is missing or empty and both are on one mount: atomic.
    /// - Otherwise (another file system, or another mount of the same one, as systemd's
    ///   ReadWritePaths makes: EXDEV) each file is copied durably, `current` last, then the
    ///   originals are crypto-erased and the directory removed. The copied `current` is the
    ///   commit point, so an interrupted move resumes at the next open: before it, the copies are
    ///   made again from the originals; after it, the originals, every one already in the key
    ///   directory byte for byte, are erased.
    /// - A key directory with its own `current` is never merged with a legacy directory holding
    ///   anything it does not hold itself: that is what a copy restored from before the move
    ///   looks like (after a rotation or an erase), and merging would hand its old keys back.
    func adoptLegacy(_ legacy: String) throws(VaultError) -> Bool {
        var info = stat()
        guard lstat(legacy, &info) == 0 else {
            if errno == ENOENT { return false }
            throw DurableFile.failure("stat", legacy)
        }
        try DurableFile.ensurePrivateDirectory(legacy)
        var present: [String] = []
        var here = stat()
        if lstat(directory, &here) == 0 {
            // The same directory by another name (a symlink, `.` in a path): nothing to move, and
            // erasing "the originals" would erase the keys.
            if here.st_dev == info.st_dev && here.st_ino == info.st_ino { return false }
            try DurableFile.ensurePrivateDirectory(directory)
            present = try DurableFile.list(directory)
        }
        let files = try DurableFile.list(legacy)
        if present.contains("current") {
            for name in files {
                guard present.contains(name),
                      try DurableFile.read(legacy + "/" + name, maxBytes: 16 * 1024) == DurableFile.read(directory + "/" + name, maxBytes: 16 * 1024) else {
                    throw VaultError(.keyConflict, "both \(legacy) (where an older edge kept the vault keys; perhaps restored from an old backup) and \(directory) hold vault keys; move one of them away",
                                     context: ["path": legacy, "key_directory": directory])
                }
            }
            try Self.erase(legacy, files: files)
            return !files.isEmpty
        }
        // rename(2) replaces an empty directory atomically.
        if present.isEmpty {
            if rename(legacy, directory) == 0 {
                do {
                    try PosixFile.syncDirectory(of: directory)
                    try PosixFile.syncDirectory(of: legacy)
                } catch {
                    throw VaultError(.io, error.message, context: error.context)
                }
                return true
            }
            guard errno == EXDEV else { throw DurableFile.failure("move keys to", directory) }
        }
        try DurableFile.ensurePrivateDirectory(directory)
        // `current` last: it commits the copy (see above).
        for name in files.filter({ $0 != "current" }) + files.filter({ $0 == "current" }) {
            let bytes = try DurableFile.read(legacy + "/" + name, maxBytes: 16 * 1024)
            try DurableFile.write(bytes, to: directory + "/" + name, mode: name == "current" ? 0o600 : 0o400)
        }
        try Self.erase(legacy, files: files)
        return true
    }

    /// Crypto-erases `files` in `directory`, then removes it.
    private static func erase(_ directory: String, files: [String]) throws(VaultError) {
        for name in files { try DurableFile.destroy(directory + "/" + name) }
        guard rmdir(directory) == 0 || errno == ENOENT else { throw DurableFile.failure("remove", directory) }
    }
}
