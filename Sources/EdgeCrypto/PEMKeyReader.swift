import CLibCrypto

/// Reads PEM keys into EVP_PKEYs through a read-only memory BIO, shared by `RSAPrivateKey` and
/// `RSAPublicKey`.
enum PEMKeyReader {
    /// Minimum modulus size accepted: Google issues 2048-bit service-account keys, and anything
    /// shorter is below what RS256 is meant to be used with.
    static let minimumBits: Int32 = 2048

    /// `read` runs PEM_read_bio_* on a BIO over `bytes`. The key must be RSA of >= 2048 bits.
    static func rsaKey(_ bytes: UnsafeRawBufferPointer, kind: String,
                       _ read: (LibCrypto, OpaquePointer) -> OpaquePointer?) throws(CryptoError) -> OpaquePointer {
        guard let base = bytes.baseAddress, bytes.count > 0, bytes.count < Int(Int32.max) else {
            throw CryptoError(.invalidKey, "The \(kind) PEM is empty.", context: ["kind": kind])
        }
        let ssl = try OpenSSL.library
        let bio = try OpenSSL.nonNull(ssl.bioNewMemBuf(base, Int32(bytes.count)), "BIO_new_mem_buf", "could not wrap the PEM in a BIO")
        defer { _ = ssl.bioFree(bio) }
        guard let key = read(ssl, bio) else {
            // The queue names the PEM reason (no start line, bad base64, wrong type), never key bytes.
            throw CryptoError(.invalidKey, "The \(kind) is not a readable PEM key.", context: ["kind": kind, "openssl": OpenSSL.drainErrors()])
        }
        guard ssl.pkeyGetBaseID(key) == EVP_PKEY_RSA else {
            ssl.pkeyFree(key)
            throw CryptoError(.invalidKey, "The \(kind) is not an RSA key.", context: ["kind": kind])
        }
        let bits = ssl.pkeyGetBits(key)
        guard bits >= minimumBits else {
            ssl.pkeyFree(key)
            throw CryptoError(.invalidKey, "The \(kind) has \(bits) bits; RS256 needs at least \(minimumBits).",
                              context: ["kind": kind, "bits": String(bits)])
        }
        return key
    }
}
