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
public final class Vault {
    public static let deviceIDName = "device-id"
    /// Secrets are tokens and keys, not files: 64 KiB is generous, and the cap bounds memory.
    public static let maxSecretBytes = 64 * 1024

    public let directory: String
    /// The backend new key generations use (what `auto` resolved to).
    public let backend: VaultBackend
    /// Why that backend: "configured", or for `auto` whether a TPM answered.
    public let backendReason: String
    public let tcti: String
    public let pcrs: [Int]
    /// Set when `auto` found a TPM device that refused to open: why the vault uses the key file.
    public private(set) var tpmRefusal: String?
    private let keys: KeyRing
    private var cachedDeviceID: String?
    private var tpmContext: TPMContext?
    /// Derived keys by generation, so a TPM unseal happens once per generation and process.
    private var derivedKeys: [[UInt8]: (key: SymmetricKey, backend: VaultBackend)] = [:]

    private var secretsDirectory: String { directory + "/secrets" }

    /// Opens (creating if needed) the vault in `directory`. `tcti` reaches the TPM for the tpm2
    /// backends (HW-6: from configuration, default the kernel resource manager); `pcrs` binds
    /// newly sealed keys to those SHA-256 PCRs.
    public init(directory: String, backend choice: VaultBackendChoice = .keyfile, tcti: String = "device:/dev/tpmrm0",
                pcrs: [Int] = []) throws(VaultError) {
        self.directory = directory
        self.tcti = tcti
        self.pcrs = pcrs
        keys = KeyRing(vaultDirectory: directory)
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
        try DurableFile.ensurePrivateDirectory(directory)
        try DurableFile.ensurePrivateDirectory(secretsDirectory)
        try DurableFile.removeStaleTemporaries(in: secretsDirectory)
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
        let device = name.value == Self.deviceIDName ? "" : try deviceID()
        try write(value, name: name, device: device, keyID: try currentKeyID(), notAfter: notAfter ?? 0)
    }

    public func get(_ name: SecretName) throws(VaultError) -> SecureBytes {
        let device = name.value == Self.deviceIDName ? "" : try deviceID()
        return try open(name, device: device).value
    }

    public func remove(_ name: SecretName) throws(VaultError) {
        guard DurableFile.exists(path(name)) else {
            throw VaultError(.notFound, "no secret named \(name)", context: ["name": name.value])
        }
        try DurableFile.destroy(path(name))
    }

    /// Every secret's metadata, read from the headers without decrypting anything.
    public func list() throws(VaultError) -> [SecretInfo] {
        var infos: [SecretInfo] = []
        for file in try DurableFile.list(secretsDirectory) where file.hasSuffix(".vault") {
            let envelope = try Envelope(decoding: DurableFile.read(secretsDirectory + "/" + file, maxBytes: Self.maxEnvelopeBytes))
            infos.append(SecretInfo(name: String(file.dropLast(6)), backend: envelope.backend, keyID: Hex.encode(envelope.keyID),
                                    created: envelope.created, notAfter: envelope.notAfter == 0 ? nil : envelope.notAfter))
        }
        return infos
    }

    /// Key generations present with their backends, the current one first.
    public func keyIDs() throws(VaultError) -> [(id: String, backend: VaultBackend)] {
        let current = try currentKeyID()
        var out = [(Hex.encode(current), try keys.backend(of: current))]
        for id in try keys.allKeyIDs() where id != current { out.append((Hex.encode(id), try keys.backend(of: id))) }
        return out
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
    public func deviceID() throws(VaultError) -> String {
        if let cachedDeviceID { return cachedDeviceID }
        let name = try SecretName(Self.deviceIDName)
        let id: String
        if DurableFile.exists(path(name)) {
            id = String(decoding: try open(name, device: "").value.withUnsafeBytes { Array($0) }, as: UTF8.self)
        } else {
            id = try Self.newUUIDv4()
            try write(SecureBytes(Array(id.utf8)), name: name, device: "", keyID: try currentKeyID(), notAfter: 0)
        }
        cachedDeviceID = id
        return id
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
    }

    /// Re-encrypts every secret under a new key generation of the configured backend (so
    /// rotation is also how a vault moves from keyfile to keyfile+tpm2), then destroys keys no
    /// envelope uses. Each envelope is replaced atomically, and old keys stay until nothing needs
    /// them, so an interrupted rotation loses nothing: the next `rotate` finishes the job.
    public func rotate() throws(VaultError) -> RotationReport {
        let device = try deviceID()
        let newKey = try keys.addKey(backend: backend, tpm: tpm, pcrs: pcrs)
        var rewritten = 0
        for info in try list() {
            let name = try SecretName(info.name)
            let d = name.value == Self.deviceIDName ? "" : device
            let (value, envelope) = try open(name, device: d)
            guard envelope.keyID != newKey else { continue }
            try write(value, name: name, device: d, keyID: newKey, notAfter: envelope.notAfter, created: envelope.created)
            rewritten += 1
        }
        let used = Set(try list().map(\.keyID))
        var destroyed = 0
        for id in try keys.allKeyIDs() where id != newKey && !used.contains(Hex.encode(id)) {
            try keys.destroyKey(id)
            derivedKeys[id] = nil  // an erased key must not live on in this process either
            destroyed += 1
        }
        return RotationReport(newKeyID: Hex.encode(newKey), rewritten: rewritten, keysDestroyed: destroyed)
    }

    /// Crypto-erase: destroys the key material first (so backups of the envelopes are useless),
    /// then the envelopes, then the directories.
    public func wipe() throws(VaultError) {
        try keys.destroyAll()
        for file in try DurableFile.list(secretsDirectory) { try DurableFile.destroy(secretsDirectory + "/" + file) }
        _ = rmdir(keys.directory)
        _ = rmdir(secretsDirectory)
        _ = rmdir(directory)
        cachedDeviceID = nil
        derivedKeys = [:]
    }

    // MARK: sealing

    static let maxEnvelopeBytes = maxSecretBytes + Envelope.maxBackendHeader + 256

    /// AES key of a generation: HKDF-SHA256 over its key material, salted with the key id and
    /// labelled with the backend, so the same material never yields the same key twice.
    private func derivedKey(_ keyID: [UInt8]) throws(VaultError) -> (key: SymmetricKey, backend: VaultBackend) {
        if let cached = derivedKeys[keyID] { return cached }
        let backend = try keys.backend(of: keyID)
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

    private func open(_ name: SecretName, device: String) throws(VaultError) -> (value: SecureBytes, envelope: Envelope) {
        let bytes: [UInt8]
        do {
            bytes = try DurableFile.read(path(name), maxBytes: Self.maxEnvelopeBytes)
        } catch where error.code == .notFound {
            throw VaultError(.notFound, "no secret named \(name)", context: ["name": name.value])
        }
        let envelope: Envelope
        do {
            envelope = try Envelope(decoding: bytes)
        } catch {
            throw VaultError(error.code, "secret \(name): \(error.message)", context: error.context.merging(["name": name.value]) { a, _ in a })
        }
        let (key, keyBackend) = try derivedKey(envelope.keyID)
        guard envelope.backend == keyBackend else {
            throw VaultError(.tampered, "secret \(name) claims the \(envelope.backend) backend but its key is \(keyBackend)",
                             context: ["name": name.value])
        }
        let aad = Envelope.aad(header: envelope.header, deviceID: device, name: name)
        do {
            let box = try AESGCM.SealedBox(nonce: envelope.nonce, ciphertext: envelope.ciphertext, tag: envelope.tag)
            return (try AESGCM.open(box, using: key, authenticating: aad), envelope)
        } catch {
            throw VaultError(.tampered, "secret \(name) does not authenticate: the file was altered, renamed, copied from another device, or sealed with another key",
                             context: ["name": name.value])
        }
    }
}
