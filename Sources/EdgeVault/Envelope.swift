/// The on-disk form of one secret (VLT-2), version 1:
///
///     magic "EDGV" | version u8 | backend u8 | key id [16] | created i64 | not-after i64 (0: none)
///     | backend header length u16 | backend header | nonce [12] | ciphertext length u32
///     | ciphertext | tag [16]
///
/// Big-endian integers. Everything before the ciphertext is the header; the AES-GCM AAD is the
/// header plus the device id and the secret's name (length-prefixed), so no byte of the file is
/// unauthenticated and a file copied to another device or renamed does not open.
struct Envelope: Equatable {
    static let magic: [UInt8] = Array("EDGV".utf8)
    static let version: UInt8 = 1
    static let keyIDByteCount = 16
    static let nonceByteCount = 12
    static let tagByteCount = 16
    /// Sizes this build accepts; larger values are refused before any crypto (VLT-2).
    static let maxBackendHeader = 4096
    static let maxCiphertext = 1 << 20

    var backend: VaultBackend
    var keyID: [UInt8]
    var created: Int64
    var notAfter: Int64
    var backendHeader: [UInt8]
    var nonce: [UInt8]
    var ciphertext: [UInt8]
    var tag: [UInt8]

    /// The header bytes, exactly as stored.
    var header: [UInt8] {
        var w = ByteWriter()
        w.append(Self.magic)
        w.uint8(Self.version)
        w.uint8(backend.rawValue)
        w.append(keyID)
        w.int64(created)
        w.int64(notAfter)
        w.uint16(UInt16(backendHeader.count))
        w.append(backendHeader)
        w.append(nonce)
        w.uint32(UInt32(ciphertext.count))
        return w.bytes
    }

    var encoded: [UInt8] { header + ciphertext + tag }

    /// Header + device id + name, each variable part length-prefixed so no two different
    /// (device, name) pairs give the same AAD.
    static func aad(header: [UInt8], deviceID: String, name: SecretName) -> [UInt8] {
        var w = ByteWriter()
        w.append(header)
        let device = Array(deviceID.utf8), n = Array(name.value.utf8)
        w.uint16(UInt16(truncatingIfNeeded: device.count))
        w.append(device)
        w.uint16(UInt16(truncatingIfNeeded: n.count))
        w.append(n)
        return w.bytes
    }

    /// Parses and checks the structure; no crypto. Unknown magic, version, backend or sizes out
    /// of range are `unsupportedEnvelope`; short files `truncated`; trailing bytes `tampered`.
    init(decoding bytes: [UInt8]) throws(VaultError) {
        var r = ByteReader(bytes)
        guard try r.take(4) == Self.magic else {
            throw VaultError(.unsupportedEnvelope, "not a vault file (bad magic)")
        }
        let version = try r.uint8()
        guard version == Self.version else {
            throw VaultError(.unsupportedEnvelope, "vault file version \(version) is not supported by this edge", context: ["version": String(version)])
        }
        let rawBackend = try r.uint8()
        guard let backend = VaultBackend(rawValue: rawBackend) else {
            throw VaultError(.unsupportedEnvelope, "vault file names an unknown backend \(rawBackend)", context: ["backend": String(rawBackend)])
        }
        self.backend = backend
        keyID = try r.take(Self.keyIDByteCount)
        created = try r.int64()
        notAfter = try r.int64()
        let headerLength = Int(try r.uint16())
        guard headerLength <= Self.maxBackendHeader else {
            throw VaultError(.unsupportedEnvelope, "vault file backend header is too large (\(headerLength) bytes)")
        }
        backendHeader = try r.take(headerLength)
        nonce = try r.take(Self.nonceByteCount)
        let ciphertextLength = Int(try r.uint32())
        guard ciphertextLength <= Self.maxCiphertext else {
            throw VaultError(.unsupportedEnvelope, "vault file ciphertext is too large (\(ciphertextLength) bytes)")
        }
        ciphertext = try r.take(ciphertextLength)
        tag = try r.take(Self.tagByteCount)
        guard r.remaining == 0 else {
            throw VaultError(.tampered, "vault file has \(r.remaining) unexpected bytes after its tag")
        }
    }

    init(backend: VaultBackend, keyID: [UInt8], created: Int64, notAfter: Int64, backendHeader: [UInt8],
         nonce: [UInt8], ciphertext: [UInt8], tag: [UInt8]) {
        self.backend = backend
        self.keyID = keyID
        self.created = created
        self.notAfter = notAfter
        self.backendHeader = backendHeader
        self.nonce = nonce
        self.ciphertext = ciphertext
        self.tag = tag
    }
}
