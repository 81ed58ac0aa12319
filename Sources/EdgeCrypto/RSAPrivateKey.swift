import CLibCrypto

/// An RSA private key (PKCS#8 PEM, "-----BEGIN PRIVATE KEY-----", as in a Google service
/// account's `private_key`) that signs RS256: SHA-256 with PKCS#1 v1.5 padding (RFC 7518 3.3).
///
/// Decision: a final class owning the EVP_PKEY, `@unchecked Sendable` because the key is never
/// mutated after loading and OpenSSL 3 allows concurrent signing with one EVP_PKEY (each
/// signature gets its own EVP_MD_CTX). The description shows only the size.
public final class RSAPrivateKey: @unchecked Sendable, CustomStringConvertible {
    private let key: OpaquePointer
    public let bits: Int

    /// Loads a PEM private key. Encrypted PEMs are refused (no passphrase prompt): the vault,
    /// not a passphrase, protects the key at rest. Throws `.invalidKey` for anything but an
    /// unencrypted RSA key of at least 2048 bits.
    public init(pem: SecureBytes) throws(CryptoError) {
        key = try pem.withUnsafeBytes { (bytes) throws(CryptoError) -> OpaquePointer in
            try PEMKeyReader.rsaKey(bytes, kind: "private key") { bio in
                // A callback answering "no passphrase" so OpenSSL never reads the terminal.
                PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil)
            }
        }
        bits = Int(EVP_PKEY_get_bits(key))
    }

    /// Copies `pem` into SecureBytes first; the caller's array is the caller's to wipe.
    public convenience init(pem: [UInt8]) throws(CryptoError) {
        try self.init(pem: SecureBytes(pem))
    }

    deinit { EVP_PKEY_free(key) }

    /// The RS256 signature of `message` (hashed here with SHA-256): `bits / 8` bytes.
    public func sign(sha256 message: [UInt8]) throws(CryptoError) -> [UInt8] {
        let context = try OpenSSL.nonNull(EVP_MD_CTX_new(), "EVP_MD_CTX_new", "could not create a signing context")
        defer { EVP_MD_CTX_free(context) }
        // RSA keys default to PKCS#1 v1.5 padding, which is what RS256 is.
        try OpenSSL.check(EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key), "EVP_DigestSignInit", "could not start an RS256 signature")
        var length = 0
        try message.withUnsafeBufferPointer { (input) throws(CryptoError) in
            try OpenSSL.check(EVP_DigestSign(context, nil, &length, input.baseAddress, input.count), "EVP_DigestSign", "could not size the RS256 signature")
        }
        var signature = [UInt8](repeating: 0, count: length)
        let result = signature.withUnsafeMutableBufferPointer { out in
            message.withUnsafeBufferPointer { input in
                EVP_DigestSign(context, out.baseAddress, &length, input.baseAddress, input.count)
            }
        }
        try OpenSSL.check(result, "EVP_DigestSign", "RS256 signing failed")
        return Array(signature.prefix(length))
    }

    public var description: String { "RSAPrivateKey(\(bits) bits)" }
}
