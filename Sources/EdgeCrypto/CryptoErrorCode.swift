/// What went wrong in EdgeCrypto, for callers that branch on it (the vault maps these to its own codes).
public enum CryptoErrorCode: String, Sendable, Hashable {
    /// The OpenSSL CSPRNG (RAND_bytes) reported failure; no bytes are returned.
    case randomFailure
    /// A key is not the size the algorithm needs (AES-256: 32 bytes).
    case invalidKeySize
    /// An AES-GCM nonce is not 12 bytes.
    case invalidNonceSize
    /// An AES-GCM tag is not 16 bytes.
    case invalidTagSize
    /// A requested length is negative or out of the algorithm's range (e.g. HKDF output > 255 × 32).
    case invalidLength
    /// AES-GCM tag mismatch: wrong key, nonce or AAD, or tampered ciphertext/tag.
    case authenticationFailure
    /// A PEM key could not be read, is not RSA, or is shorter than 2048 bits.
    case invalidKey
    /// OpenSSL returned an error (`context["openssl"]` has its error string), or libcrypto could
    /// not be loaded (`context["function"]` is dlopen or dlsym, `context["dlerror"]` the reason).
    case libraryFailure
    /// A system call of the secret-hygiene seam failed (`DumpProtection`: prctl, madvise);
    /// `context["call"]` names it, `context["errno"]` the error.
    case systemFailure
}
