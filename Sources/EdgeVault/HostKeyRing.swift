import EdgeCrypto
import Glibc

/// The keyfile backend's keys (VLT-1, VLT-5): 32-byte host keys in `<vault>/keys/<key id>.key`
/// (mode 0400, directory 0700) and the id of the one new envelopes use in `<vault>/keys/current`.
/// Older keys stay, decrypt-only, until rotation has rewritten every envelope that uses them.
struct HostKeyRing {
    static let keyByteCount = 32
    let directory: String

    init(vaultDirectory: String) {
        directory = vaultDirectory + "/keys"
    }

    private var currentPath: String { directory + "/current" }

    private func path(of keyID: [UInt8]) -> String { directory + "/" + Hex.encode(keyID) + ".key" }

    /// The current key id, creating the first key when the vault is new.
    func currentKeyID() throws(VaultError) -> [UInt8] {
        try DurableFile.ensurePrivateDirectory(directory)
        if DurableFile.exists(currentPath) {
            let text = try DurableFile.read(currentPath, maxBytes: 64)
            guard let id = Hex.decode(String(decoding: text, as: UTF8.self)), id.count == Envelope.keyIDByteCount else {
                throw VaultError(.insecureKeyFile, "\(currentPath) is damaged", context: ["path": currentPath])
            }
            return id
        }
        return try addKey()
    }

    /// Creates a new random host key and makes it current; returns its id.
    @discardableResult
    func addKey() throws(VaultError) -> [UInt8] {
        try DurableFile.ensurePrivateDirectory(directory)
        let id: [UInt8]
        let key: SecureBytes
        do {
            id = try Random.bytes(Envelope.keyIDByteCount)
            key = try Random.secureBytes(Self.keyByteCount)
        } catch {
            throw VaultError(.crypto, "the system random generator failed: \(error.message)")
        }
        // The key file is written read-only for the owner; the durable write sets the mode
        // before the rename, so the key is never visible with looser permissions.
        let raw = key.withUnsafeBytes { Array($0) }
        try DurableFile.write(raw, to: path(of: id), mode: 0o400)
        try DurableFile.write(Array(Hex.encode(id).utf8), to: currentPath, mode: 0o600)
        return id
    }

    /// The host key with this id, after checking the file is what only this vault could have made.
    func key(_ id: [UInt8]) throws(VaultError) -> SecureBytes {
        let p = path(of: id)
        var info = stat()
        guard lstat(p, &info) == 0 else {
            throw VaultError(.unknownKey, "the key this secret was sealed with is not in this vault (wiped, rotated away, or another host)",
                             context: ["key_id": Hex.encode(id)])
        }
        try Self.checkKeyFile(p, info)
        let bytes = try DurableFile.read(p, maxBytes: Self.keyByteCount + 1)
        guard bytes.count == Self.keyByteCount else {
            throw VaultError(.insecureKeyFile, "\(p) is \(bytes.count) bytes, not \(Self.keyByteCount)", context: ["path": p])
        }
        return SecureBytes(bytes)
    }

    /// VLT-1 refusals: only a regular, single-linked, owner-only, owner-owned file is a key.
    static func checkKeyFile(_ p: String, _ info: stat) throws(VaultError) {
        func refuse(_ why: String) -> VaultError { VaultError(.insecureKeyFile, "refusing key file \(p): \(why)", context: ["path": p]) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw refuse("not a regular file") }
        guard info.st_nlink == 1 else { throw refuse("it has \(info.st_nlink) hard links") }
        guard info.st_uid == geteuid() else { throw refuse("it belongs to another user") }
        guard info.st_mode & 0o377 == 0 else { throw refuse("mode \(String(info.st_mode & 0o777, radix: 8)) is looser than 400") }
        guard Int(info.st_size) == keyByteCount else { throw refuse("it is \(info.st_size) bytes, not \(keyByteCount)") }
    }

    /// Ids of every key file present.
    func allKeyIDs() throws(VaultError) -> [[UInt8]] {
        try DurableFile.list(directory).compactMap { name in
            guard name.hasSuffix(".key") else { return nil }
            return Hex.decode(String(name.dropLast(4)))
        }
    }

    /// Crypto-erase of one key (VLT-6).
    func destroyKey(_ id: [UInt8]) throws(VaultError) {
        try DurableFile.destroy(path(of: id))
    }

    func destroyAll() throws(VaultError) {
        for id in try allKeyIDs() { try destroyKey(id) }
        try DurableFile.remove(currentPath)
    }
}
