import EdgeCrypto
import EdgeTPM
import Glibc

/// The token vault (vault.md): named secrets in `<dir>/secrets/<name>.vault`, each an
/// `Envelope` sealed with AES-256-GCM under a key derived (HKDF-SHA256) from the current key
/// generation (`KeyRing`: host key file, TPM-sealed data key, or both), bound to this device's
/// id and the secret's name.
///
/// Decision: the device id (ENR-15) is itself the secret `device-id`, sealed with an empty
/// device id in its AAD (it is what defines the device); every other secret's AAD carries it.
///
/// Concurrency (VLT-9): every public operation runs under one exclusive lock on the vault
/// directory (`VaultLock`), taken once per operation (nested calls reuse it), so several
/// processes can share a vault without losing each other's writes. A `Vault` value itself is
/// for one thread at a time.
public final class Vault {
    public static let deviceIDName = "device-id"
    /// Secrets are tokens and keys, not files: 64 KiB is generous, and the cap bounds memory.
    public static let maxSecretBytes = 64 * 1024

    public let directory: String
    /// Where the key generations live: outside `directory` (see `init`).
    public let keyDirectory: String
    /// The backend new key generations use (what `auto` resolved to).
    public let backend: VaultBackend
    /// Why that backend: "configured", or for `auto` whether a TPM answered.
    public let backendReason: String
    public let tcti: String
    public let pcrs: [Int]
    /// Set when `auto` found a TPM device that refused to open: why the vault uses the key file.
    public private(set) var tpmRefusal: String?
    /// The directories whose keys this open moved into `keyDirectory` (older layouts), for the
    /// opener to report; empty when nothing moved.
    public private(set) var movedKeys: [String] = []
    private let keys: KeyRing
    /// Where older edges kept this vault's keys (`<vault>/keys`, and what the opener adds).
    private let legacyKeyDirectories: [String]
    private var tpmContext: TPMContext?
    /// Derived keys by generation, so a TPM unseal happens once per generation and process.
    /// An entry is used only while its generation's files still exist, so a generation another
    /// process destroyed (rotation, erase) is not kept alive here.
    private var derivedKeys: [[UInt8]: (key: SymmetricKey, backend: VaultBackend)] = [:]
    /// Depth of `locked` calls on this value: the flock is taken by the outermost one only
    /// (a second flock from this process on a new descriptor would wait for itself).
    private var lockDepth = 0

    private var secretsDirectory: String { directory + "/secrets" }

    /// The key directory a vault uses when none is given: `<directory>-keys`, next to it
    /// (`edge vault --dir DIR`). The station gives its own: `<state>-keys`, outside the state
    /// directory (`StationPaths`).
    public static func defaultKeyDirectory(for directory: String) -> String {
        trimmed(directory) + "-keys"
    }

    private static func trimmed(_ path: String) -> String {
        var p = path
        while p.count > 1 && p.hasSuffix("/") { p.removeLast() }
        return p
    }

    /// Opens (creating if needed) the vault in `directory`, with its key generations in
    /// `keyDirectory` (default `<directory>-keys`). `tcti` reaches the TPM for the tpm2
    /// backends (HW-6: from configuration, default the kernel resource manager); `pcrs` binds
    /// newly sealed keys to those SHA-256 PCRs.
    ///
    /// Decision, where keys live: outside the vault directory. Crypto-erase (`erase`, `wipe`)
    /// means destroying the key generations that sealed the erased envelopes; keys kept in
    /// `<vault>/keys` travelled with every copy of the vault directory, so a copy restored in
    /// place opened everything again. The key directory must not be the vault directory or lie
    /// inside it (refused). Keys found in `<vault>/keys` (vaults made before this change) or in
    /// `legacyKeyDirectories` (the station's old default, `<state>/vault-keys`) are moved to the
    /// key directory when the vault is opened, once, under the vault lock (`KeyRing.adoptLegacy`);
    /// a copy made before that move still holds its own keys, which no erase can reach.
    public init(directory: String, keyDirectory: String? = nil, backend choice: VaultBackendChoice = .keyfile,
                tcti: String = "device:/dev/tpmrm0", pcrs: [Int] = [], legacyKeyDirectories: [String] = []) throws(VaultError) {
        let directory = Self.trimmed(directory)
        let keyDirectory = keyDirectory.map(Self.trimmed) ?? Self.defaultKeyDirectory(for: directory)
        guard keyDirectory != directory, !keyDirectory.hasPrefix(directory + "/") else {
            throw VaultError(.insecureKeyFile, "the vault key directory \(keyDirectory) must be outside the vault directory \(directory): a copy of the vault directory must not carry its keys",
                             context: ["path": directory, "key_directory": keyDirectory])
        }
        self.directory = directory
        self.keyDirectory = keyDirectory
        self.tcti = tcti
        self.pcrs = pcrs
        keys = KeyRing(directory: keyDirectory)
        var legacy = [KeyRing.legacyDirectory(ofVault: directory)]
        for path in legacyKeyDirectories.map(Self.trimmed) where path != keyDirectory && !legacy.contains(path) { legacy.append(path) }
        self.legacyKeyDirectories = legacy
        switch choice {
        case .keyfile: (backend, backendReason) = (.keyfile, "configured")
        case .tpm2: (backend, backendReason) = (.tpm2, "configured")
        case .keyfileTPM2: (backend, backendReason) = (.keyfileTPM2, "configured")
        case .auto:
            // The strongest available: both factors when a TPM answers, else the key file.
            do {
                tpmContext = try TPMContext(tcti: tcti)
                (backend, backendReason) = (.keyfileTPM2, "auto: TPM found at \(tcti)")
            } catch {
                // Decision: a TPM that is there but refuses (permissions, a busy resource manager)
                // still falls back to the key file so the station keeps working, but never
                // silently: the reason names the refusal and `tpmRefusal` carries it for the
                // agent's log and status (issue #11, item 8).
                if let device = Self.devicePath(tcti), access(device, F_OK) == 0 {
                    let refusal = "a TPM is at \(device) but refused: \(error.message)"
                    tpmRefusal = refusal
                    (backend, backendReason) = (.keyfile, "auto: \(refusal); new keys use the key file only")
                } else {
                    (backend, backendReason) = (.keyfile, "auto: no TPM at \(tcti)")
                }
            }
        }
        try locked { () throws(VaultError) in
            for path in legacy where try keys.adoptLegacy(path) { movedKeys.append(path) }
            try DurableFile.ensurePrivateDirectory(keyDirectory)
            try DurableFile.removeStaleTemporaries(in: secretsDirectory)
            try DurableFile.removeStaleTemporaries(in: keyDirectory)
        }
    }

    /// Runs `body` holding the vault lock (VLT-9), after checking the vault, secrets and key
    /// directories: the same ownership, mode and symlink refusals on every read as on the
    /// write that created them (issue #16).
    private func locked<T>(_ body: () throws(VaultError) -> T) throws(VaultError) -> T {
        guard lockDepth == 0 else { return try body() }
        return try VaultLock.holding(directory: directory) { () throws(VaultError) -> T in
            lockDepth += 1
            defer { lockDepth -= 1 }
            try DurableFile.ensurePrivateDirectory(secretsDirectory)
            // The key directory is checked, not created, before a legacy one is moved into it.
            if DurableFile.exists(keyDirectory) || !legacyKeyDirectories.contains(where: DurableFile.exists) {
                try DurableFile.ensurePrivateDirectory(keyDirectory)
            }
            return try body()
        }
    }

    /// The device node of a `device:` TCTI ("device:/dev/tpmrm0"; bare "device" is /dev/tpmrm0).
    static func devicePath(_ tcti: String) -> String? {
        guard tcti == "device" || tcti.hasPrefix("device:") else { return nil }
        let path = tcti.dropFirst("device".count).drop { $0 == ":" }
        return path.isEmpty ? "/dev/tpmrm0" : String(path)
    }

    private func path(_ name: SecretName) -> String { secretsDirectory + "/" + name.value + ".vault" }

    // MARK: secrets

    public func put(_ value: SecureBytes, name: SecretName, notAfter: Int64? = nil) throws(VaultError) {
        guard value.count <= Self.maxSecretBytes else {
            throw VaultError(.tooLarge, "secret \(name) is larger than \(Self.maxSecretBytes) bytes", context: ["name": name.value])
        }
        try locked { () throws(VaultError) in
            let device = name.value == Self.deviceIDName ? "" : try deviceID()
            try write(value, name: name, device: device, keyID: try currentKeyID(), notAfter: notAfter ?? 0)
        }
    }

    public func get(_ name: SecretName) throws(VaultError) -> SecureBytes {
        try locked { () throws(VaultError) in
            try open(name, device: { () throws(VaultError) in name.value == Self.deviceIDName ? "" : try deviceID() }).value
        }
    }

    public func remove(_ name: SecretName) throws(VaultError) {
        try locked { () throws(VaultError) in
            guard DurableFile.exists(path(name)) else {
                throw VaultError(.notFound, "no secret named \(name)", context: ["name": name.value])
            }
            try DurableFile.destroy(path(name))
        }
    }

    /// Every secret's metadata, read from the headers without decrypting anything.
    public func list() throws(VaultError) -> [SecretInfo] {
        try locked { () throws(VaultError) in
            var infos: [SecretInfo] = []
            for name in try envelopeNames() {
                let envelope = try Envelope(decoding: DurableFile.read(path(name), maxBytes: Self.maxEnvelopeBytes))
                infos.append(SecretInfo(name: name.value, backend: envelope.backend, keyID: Hex.encode(envelope.keyID),
                                        created: envelope.created, notAfter: envelope.notAfter == 0 ? nil : envelope.notAfter))
            }
            return infos
        }
    }

    /// Key generations present with their backends, the current one first.
    public func keyIDs() throws(VaultError) -> [(id: String, backend: VaultBackend)] {
        try locked { () throws(VaultError) in
            let current = try currentKeyID()
            var out = [(Hex.encode(current), try keys.backend(of: current))]
            for id in try keys.allKeyIDs() where id != current { out.append((Hex.encode(id), try keys.backend(of: id))) }
            return out
        }
    }

    /// Names of the envelopes present (files that are not `<valid name>.vault` are not secrets).
    private func envelopeNames() throws(VaultError) -> [SecretName] {
        var names: [SecretName] = []
        for file in try DurableFile.list(secretsDirectory) where file.hasSuffix(".vault") {
            if let name = try? SecretName(String(file.dropLast(6))) { names.append(name) }
        }
        return names
    }

    /// The current generation, created (for the configured backend) when the vault is new.
    private func currentKeyID() throws(VaultError) -> [UInt8] {
        if let id = try keys.currentKeyID() { return id }
        return try keys.addKey(backend: backend, tpm: tpm, pcrs: pcrs)
    }

    /// The TPM, connected on first use.
    private func tpm() throws(VaultError) -> TPMContext {
        if let tpmContext { return tpmContext }
        do {
            let context = try TPMContext(tcti: tcti)
            tpmContext = context
            return context
        } catch {
            throw VaultError(from: error)
        }
    }

    // MARK: device identity (ENR-15)

    /// This station's UUID v4, created from the CSPRNG on first use and kept in the vault.
    /// Decision: read from the vault each time, not cached: another process may wipe the vault,
    /// and a stale id would seal new secrets to a device that no longer exists.
    public func deviceID() throws(VaultError) -> String {
        try locked { () throws(VaultError) in
            let name = try SecretName(Self.deviceIDName)
            if DurableFile.exists(path(name)) {
                return String(decoding: try open(name, device: { "" }).value.withUnsafeBytes { Array($0) }, as: UTF8.self)
            }
            let id = try Self.newUUIDv4()
            try write(SecureBytes(Array(id.utf8)), name: name, device: "", keyID: try currentKeyID(), notAfter: 0)
            return id
        }
    }

    static func newUUIDv4() throws(VaultError) -> String {
        var b = try VaultRandom.bytes(16)
        b[6] = (b[6] & 0x0F) | 0x40  // version 4
        b[8] = (b[8] & 0x3F) | 0x80  // RFC 4122 variant
        let h = Hex.encode(b)
        let c = Array(h)
        return String(c[0..<8]) + "-" + String(c[8..<12]) + "-" + String(c[12..<16]) + "-" + String(c[16..<20]) + "-" + String(c[20..<32])
    }

    // MARK: rotation and erase (VLT-5, VLT-6)

    public struct RotationReport: Sendable, Equatable {
        public let newKeyID: String
        public let rewritten: Int
        public let keysDestroyed: Int
        /// Whether this rotation finished an interrupted one (reusing its new key) instead of
        /// adding another generation.
        public let resumed: Bool
        /// Envelopes that could not be opened (altered, truncated, not a regular file, under a
        /// key that is gone): reported, left in place, and not an obstacle to the others.
        public let damaged: [DamagedSecret]
    }

    /// Re-encrypts every secret under a new key generation of the configured backend (so
    /// rotation is also how a vault moves from keyfile to keyfile+tpm2), then destroys every
    /// older generation. Each envelope is replaced atomically and old keys are destroyed only
    /// after every envelope that can be opened was rewritten, so an interrupted rotation loses
    /// nothing.
    ///
    /// Decision, resuming (issue #16): a completed rotation or erase leaves one generation, and
    /// `put` always seals under the current key, so envelopes under an older generation next to
    /// a current key of the configured backend mean a rotation was interrupted after its key
    /// became current: this one reuses that key instead of adding another. Either way every
    /// older generation is destroyed at the end, so generations never pile up. Damaged envelopes are
    /// reported in `damaged` and do not stop the others; one that fails for a reason that may
    /// pass (I/O, the TPM, PCRs, key file permissions) stops the rotation before any key is
    /// destroyed.
    public func rotate() throws(VaultError) -> RotationReport {
        try locked { () throws(VaultError) in
            let device = try deviceID()
            var target: [UInt8]?
            if let current = try keys.currentKeyID(), try keys.backend(of: current) == backend, try rotationPending(current: current) {
                target = current
            }
            let resumed = target != nil
            let newKey: [UInt8]
            if let target { newKey = target } else { newKey = try keys.addKey(backend: backend, tpm: tpm, pcrs: pcrs) }
            let moved = try moveEverything(to: newKey, device: device)
            return RotationReport(newKeyID: Hex.encode(newKey), rewritten: moved.rewritten, keysDestroyed: moved.destroyed,
                                  resumed: resumed, damaged: moved.damaged)
        }
    }

    /// Crypto-erase of named secrets (VLT-6, ENR-10): removes their envelopes (overwritten, then
    /// unlinked, as `remove` does), then moves every remaining secret to a new key generation
    /// and destroys every older generation (host key file overwritten then unlinked; sealed TPM
    /// blob likewise). Names that are not in the vault are skipped, so a failed erase can simply
    /// be called again; `erased` counts the envelopes removed by this call.
    ///
    /// What it protects against: an earlier copy of the vault directory (a backup, a disk image
    /// of it, a copy restored in place over the live one) cannot open the erased secrets, nor
    /// anything else it holds: its envelopes name generations that no longer exist
    /// (`unknownKey`), and the keys live outside the vault directory (`keyDirectory`).
    ///
    /// What it does not protect against: a copy that also holds the key directory from before
    /// the erase (a backup that took the key directory, `<state>-keys` by default, with the
    /// keyfile backend, or with tpm2 / keyfile+tpm2 together with this TPM, which still unseals
    /// the copied blob); a copy made before the keys moved out of `<vault>/keys` or
    /// `<state>/vault-keys`; storage that keeps old blocks (copy-on-write file systems, snapshots,
    /// wear-levelled flash), where the overwrite is best effort; a process that read the secret
    /// before the erase. With keyfile+tpm2, clearing the TPM's owner hierarchy also closes the
    /// first of these.
    ///
    /// Decision: always a fresh generation, never the resumed one of an interrupted rotation:
    /// an erased secret may already have been rewritten under that key, and a copy made then
    /// would open it again if that key survived.
    ///
    /// The device id cannot be erased by name (every other secret is bound to it): `wipe` erases
    /// the whole vault.
    public func erase(_ names: [SecretName]) throws(VaultError) -> EraseReport {
        if let name = names.first(where: { $0.value == Self.deviceIDName }) {
            throw VaultError(.invalidName, "the device id is not erased by name; wipe erases the whole vault", context: ["name": name.value])
        }
        return try locked { () throws(VaultError) in
            let device = try deviceID()
            var erased = 0
            for name in Set(names) where DurableFile.exists(path(name)) {
                try DurableFile.destroy(path(name))
                erased += 1
            }
            // The new key is made after the envelopes are gone, so no copy holds an erased
            // secret under it.
            let newKey = try keys.addKey(backend: backend, tpm: tpm, pcrs: pcrs)
            let moved = try moveEverything(to: newKey, device: device)
            return EraseReport(erased: erased, newKeyID: Hex.encode(newKey), rewritten: moved.rewritten,
                               keysDestroyed: moved.destroyed, damaged: moved.damaged)
        }
    }

    /// Whether an envelope is still under an older generation that exists: what a rotation
    /// interrupted after making its key current leaves. (A generation no envelope uses, such as
    /// one whose rotation died before it became current, is not a reason to resume: it is
    /// destroyed by the next rotation like every other old one.)
    private func rotationPending(current: [UInt8]) throws(VaultError) -> Bool {
        let older = Set(try keys.allKeyIDs().filter { $0 != current })
        guard !older.isEmpty else { return false }
        for name in try envelopeNames() {
            guard let bytes = try? DurableFile.read(path(name), maxBytes: Self.maxEnvelopeBytes),
                  let envelope = try? Envelope(decoding: bytes) else { continue }
            if older.contains(envelope.keyID) { return true }
        }
        return false
    }

    /// What makes an envelope damaged rather than the rotation impossible: its own bytes (or
    /// the file in its place), or a key that is already gone. Anything else may pass.
    private static let damageCodes: Set<VaultErrorCode> = [.tampered, .truncated, .unsupportedEnvelope, .unknownKey, .notRegularFile, .tooLarge]

    /// Rewrites every envelope not yet under `newKey`, then destroys every other generation.
    private func moveEverything(to newKey: [UInt8], device: String) throws(VaultError)
        -> (rewritten: Int, destroyed: Int, damaged: [DamagedSecret]) {
        var rewritten = 0
        var damaged: [DamagedSecret] = []
        for name in try envelopeNames() {
            let d = name.value == Self.deviceIDName ? "" : device
            let opened: (value: SecureBytes, envelope: Envelope)
            do {
                opened = try open(name, device: { d })
            } catch where Self.damageCodes.contains(error.code) {
                damaged.append(DamagedSecret(name: name.value, error: error))
                continue
            }
            guard opened.envelope.keyID != newKey else { continue }
            try write(opened.value, name: name, device: d, keyID: newKey, notAfter: opened.envelope.notAfter, created: opened.envelope.created)
            rewritten += 1
        }
        var destroyed = 0
        for id in try keys.allKeyIDs() where id != newKey {
            try keys.destroyKey(id)
            derivedKeys[id] = nil  // an erased key must not live on in this process either
            destroyed += 1
        }
        return (rewritten, destroyed, damaged)
    }

    /// Crypto-erase of the whole vault: destroys the key material first (so backups of the
    /// envelopes are useless), then the envelopes, then the directories and the lock file.
    public func wipe() throws(VaultError) {
        try locked { () throws(VaultError) in
            try keys.destroyAll()
            for file in try DurableFile.list(secretsDirectory) { try DurableFile.destroy(secretsDirectory + "/" + file) }
            derivedKeys = [:]
            _ = rmdir(keyDirectory)
            _ = rmdir(secretsDirectory)
            // Unlinked while held: a process waiting on it sees that and locks a new one.
            _ = unlink(VaultLock.path(in: directory))
            _ = rmdir(directory)
        }
    }

    // MARK: sealing

    static let maxEnvelopeBytes = maxSecretBytes + Envelope.maxBackendHeader + 256

    /// AES key of a generation: HKDF-SHA256 over its key material, salted with the key id and
    /// labelled with the backend, so the same material never yields the same key twice.
    private func derivedKey(_ keyID: [UInt8]) throws(VaultError) -> (key: SymmetricKey, backend: VaultBackend) {
        // The generation's files are looked up every time (unknownKey once destroyed).
        let backend = try keys.backend(of: keyID)
        if let cached = derivedKeys[keyID], cached.backend == backend { return cached }
        let material = try keys.keyMaterial(keyID, tpm: tpm)
        do {
            let bytes = try HKDF.deriveKey(inputKeyMaterial: material, salt: keyID, info: Array("edge-vault/v1/\(backend)".utf8))
            let key = try SymmetricKey(bytes: bytes)
            derivedKeys[keyID] = (key, backend)
            return (key, backend)
        } catch {
            throw VaultError(.crypto, "key derivation failed: \(error.message)")
        }
    }

    /// The backend header of a new envelope: the PCR mask the generation's TPM key is bound to.
    private func backendHeader(for backend: VaultBackend) -> [UInt8] {
        guard backend != .keyfile else { return [] }
        let mask = pcrs.reduce(UInt32(0)) { $0 | (UInt32(1) << UInt32($1)) }
        var w = ByteWriter()
        w.uint32(mask)
        return w.bytes
    }

    private func write(_ value: SecureBytes, name: SecretName, device: String, keyID: [UInt8], notAfter: Int64,
                       created: Int64? = nil) throws(VaultError) {
        let (key, backend) = try derivedKey(keyID)
        let nonce = try VaultRandom.bytes(Envelope.nonceByteCount)
        var envelope = Envelope(backend: backend, keyID: keyID, created: created ?? Int64(time(nil)), notAfter: notAfter,
                                backendHeader: backendHeader(for: backend), nonce: nonce, ciphertext: [UInt8](repeating: 0, count: value.count),
                                tag: [UInt8](repeating: 0, count: Envelope.tagByteCount))
        let aad = Envelope.aad(header: envelope.header, deviceID: device, name: name)
        do {
            let box = try AESGCM.seal(value, using: key, nonce: nonce, authenticating: aad)
            envelope.ciphertext = box.ciphertext
            envelope.tag = box.tag
        } catch {
            throw VaultError(.crypto, "sealing \(name) failed: \(error.message)", context: ["name": name.value])
        }
        try DurableFile.write(envelope.encoded, to: path(name))
    }

    /// Opens a secret. `device` is asked for only once the envelope parsed and its key is
    /// known, so a secret whose key was erased says so by name even when the device id (which
    /// lives in the vault too) cannot be opened either.
    private func open(_ name: SecretName, device: () throws(VaultError) -> String) throws(VaultError) -> (value: SecureBytes, envelope: Envelope) {
        func named(_ error: VaultError) -> VaultError {
            VaultError(error.code, "secret \(name): \(error.message)", context: error.context.merging(["name": name.value]) { a, _ in a })
        }
        let bytes: [UInt8]
        do {
            bytes = try DurableFile.read(path(name), maxBytes: Self.maxEnvelopeBytes)
        } catch where error.code == .notFound {
            throw VaultError(.notFound, "no secret named \(name)", context: ["name": name.value])
        } catch {
            throw named(error)
        }
        let envelope: Envelope
        let derived: (key: SymmetricKey, backend: VaultBackend)
        do {
            envelope = try Envelope(decoding: bytes)
            derived = try derivedKey(envelope.keyID)
        } catch {
            throw named(error)
        }
        guard envelope.backend == derived.backend else {
            throw VaultError(.tampered, "secret \(name) claims the \(envelope.backend) backend but its key is \(derived.backend)",
                             context: ["name": name.value])
        }
        let aad = Envelope.aad(header: envelope.header, deviceID: try device(), name: name)
        do {
            let box = try AESGCM.SealedBox(nonce: envelope.nonce, ciphertext: envelope.ciphertext, tag: envelope.tag)
            return (try AESGCM.open(box, using: derived.key, authenticating: aad), envelope)
        } catch {
            throw VaultError(.tampered, "secret \(name) does not authenticate: the file was altered, renamed, copied from another device, or sealed with another key",
                             context: ["name": name.value])
        }
    }
}
