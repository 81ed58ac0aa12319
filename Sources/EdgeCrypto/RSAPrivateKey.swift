import CLibCrypto

/// An RSA private key (PKCS#8 PEM, "-----BEGIN PRIVATE KEY-----", as in a Google service
/// account's `private_key`) that signs RS256: SHA-256 with PKCS#1 v1.5 padding (RFC 7518 3.3).
///
/// Decision: a final class owning the EVP_PKEY, `@unchecked Sendable` because the key is never
/// mutated after loading and OpenSSL 3 allows concurrent signing with one EVP_PKEY (each
/// signature gets its own EVP_MD_CTX). The description shows only the size.
public final class RSAPrivateKey: @unchecked Sendable, CustomStringConvertible {
    private let key: OpaquePointer
    /// The library the key came from, kept so `deinit` and `sign` need no load check.
    private let ssl: LibCrypto
    public let bits: Int

    /// Loads a PEM private key. Encrypted PEMs are refused (no passphrase prompt): the vault,
    /// not a passphrase, protects the key at rest. Throws `.invalidKey` for anything but an
    /// unencrypted RSA key of at least 2048 bits.
    public init(pem: SecureBytes) throws(CryptoError) {
        let ssl = try OpenSSL.library
        key = try pem.withUnsafeBytes { (bytes) throws(CryptoError) -> OpaquePointer in
            try PEMKeyReader.rsaKey(bytes, kind: "private key") { ssl, bio in
                // A callback answering "no passphrase" so OpenSSL never reads the terminal.
                ssl.pemReadPrivateKey(bio, nil, { _, _, _, _ in 0 }, nil)
            }
        }
        self.ssl = ssl
        bits = Int(ssl.pkeyGetBits(key))
    }

    /// Copies `pem` into SecureBytes first; the caller's array is the caller's to wipe.
    public convenience init(pem: [UInt8]) throws(CryptoError) {
        try self.init(pem: SecureBytes(pem))
    }

    private init(owning key: OpaquePointer, _ ssl: LibCrypto) {
        self.key = key
        self.ssl = ssl
        bits = Int(ssl.pkeyGetBits(key))
    }

    /// A new key of `bits` bits from OpenSSL's CSPRNG (EVP_PKEY_keygen; EVP_RSA_gen is a
    /// variadic macro), e.g. for a stand-in's demo service account.
    public static func generate(bits: Int = 2048) throws(CryptoError) -> RSAPrivateKey {
        guard bits >= Int(PEMKeyReader.minimumBits), bits <= 8192 else {
            throw CryptoError(.invalidKey, "RSA keys are generated with 2048 to 8192 bits.", context: ["bits": String(bits)])
        }
        let ssl = try OpenSSL.library
        let context = try OpenSSL.nonNull(ssl.pkeyCtxNewID(EVP_PKEY_RSA, nil), "EVP_PKEY_CTX_new_id", "could not create a key generation context")
        defer { ssl.pkeyCtxFree(context) }
        try OpenSSL.check(ssl.pkeyKeygenInit(context), "EVP_PKEY_keygen_init", "could not start RSA key generation")
        try OpenSSL.check(ssl.pkeyCtxSetRSAKeygenBits(context, Int32(bits)), "EVP_PKEY_CTX_set_rsa_keygen_bits", "could not set the RSA key size")
        var key: OpaquePointer?
        try OpenSSL.check(ssl.pkeyKeygen(context, &key), "EVP_PKEY_keygen", "RSA key generation failed")
        return RSAPrivateKey(owning: try OpenSSL.nonNull(key, "EVP_PKEY_keygen", "RSA key generation returned no key"), ssl)
    }

    /// The key as unencrypted PKCS#8 PEM ("-----BEGIN PRIVATE KEY-----"), as a service account
    /// file holds it (PEM_write_bio_PrivateKey).
    public func pkcs8PEM() throws(CryptoError) -> SecureBytes {
        var bytes = try pem("PEM_write_bio_PrivateKey", secret: true) { bio in ssl.pemWritePrivateKey(bio, key, nil, nil, 0, nil, nil) }
        defer { SecureWipe.wipe(&bytes) }
        return SecureBytes(bytes)
    }

    /// The public half as SubjectPublicKeyInfo PEM ("-----BEGIN PUBLIC KEY-----", PEM_write_bio_PUBKEY).
    public func publicKeyPEM() throws(CryptoError) -> [UInt8] {
        try pem("PEM_write_bio_PUBKEY") { bio in ssl.pemWritePublicKey(bio, key) }
    }

    /// Runs a PEM writer on a memory BIO and returns what it wrote. A `secret` goes through
    /// BIO_s_secmem, whose buffer OpenSSL clears when the BIO is freed.
    private func pem(_ function: StaticString, secret: Bool = false, _ write: (OpaquePointer) -> Int32) throws(CryptoError) -> [UInt8] {
        let bio = try OpenSSL.nonNull(ssl.bioNew(secret ? ssl.bioSecureMemMethod() : ssl.bioMemMethod()), "BIO_new", "could not create a memory BIO")
        defer { _ = ssl.bioFree(bio) }
        try OpenSSL.check(write(bio), function, "could not write the key as PEM")
        let pending = Int(ssl.bioCtrlPending(bio))
        var out = [UInt8](repeating: 0, count: pending)
        let read = out.withUnsafeMutableBytes { ssl.bioRead(bio, $0.baseAddress, Int32(pending)) }
        guard read == Int32(pending) else { throw OpenSSL.failure("BIO_read", "could not read the PEM back") }
        return out
    }

    deinit { ssl.pkeyFree(key) }

    /// The RS256 signature of `message` (hashed here with SHA-256): `bits / 8` bytes.
    public func sign(sha256 message: [UInt8]) throws(CryptoError) -> [UInt8] {
        let context = try OpenSSL.nonNull(ssl.mdCtxNew(), "EVP_MD_CTX_new", "could not create a signing context")
        defer { ssl.mdCtxFree(context) }
        // RSA keys default to PKCS#1 v1.5 padding, which is what RS256 is.
        try OpenSSL.check(ssl.digestSignInit(context, nil, ssl.sha256(), nil, key), "EVP_DigestSignInit", "could not start an RS256 signature")
        var length = 0
        try message.withUnsafeBufferPointer { (input) throws(CryptoError) in
            try OpenSSL.check(ssl.digestSign(context, nil, &length, input.baseAddress, input.count), "EVP_DigestSign", "could not size the RS256 signature")
        }
        var signature = [UInt8](repeating: 0, count: length)
        let result = signature.withUnsafeMutableBufferPointer { out in
            message.withUnsafeBufferPointer { input in
                ssl.digestSign(context, out.baseAddress, &length, input.baseAddress, input.count)
            }
        }
        try OpenSSL.check(result, "EVP_DigestSign", "RS256 signing failed")
        return Array(signature.prefix(length))
    }

    public var description: String { "RSAPrivateKey(\(bits) bits)" }
}
