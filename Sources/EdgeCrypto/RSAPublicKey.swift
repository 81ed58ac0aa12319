/// An RSA public key (SubjectPublicKeyInfo PEM, "-----BEGIN PUBLIC KEY-----") that verifies
/// RS256 signatures. The stand-in checks the agent's JWTs with it. Same ownership and
/// `@unchecked Sendable` reasoning as `RSAPrivateKey`: immutable after loading.
public final class RSAPublicKey: @unchecked Sendable, CustomStringConvertible {
    private let key: OpaquePointer
    /// The library the key came from, kept so `deinit` and `verify` need no load check.
    private let ssl: LibCrypto
    public let bits: Int

    /// Throws `.invalidKey` for anything but an RSA public key of at least 2048 bits.
    public init(pem: [UInt8]) throws(CryptoError) {
        let ssl = try OpenSSL.library
        // Array.withUnsafeBytes only rethrows untyped errors; a Result carries the typed one out.
        let loaded: Result<OpaquePointer, CryptoError> = pem.withUnsafeBytes { bytes in
            Result { () throws(CryptoError) -> OpaquePointer in
                try PEMKeyReader.rsaKey(bytes, kind: "public key") { ssl, bio in ssl.pemReadPublicKey(bio, nil, nil, nil) }
            }
        }
        key = try loaded.get()
        self.ssl = ssl
        bits = Int(ssl.pkeyGetBits(key))
    }

    deinit { ssl.pkeyFree(key) }

    /// Whether `signature` is a valid RS256 signature of `message`. A wrong signature is
    /// `false`, not an error; OpenSSL's queue is drained so it cannot leak into a later failure.
    public func verify(signature: [UInt8], sha256 message: [UInt8]) -> Bool {
        guard let context = ssl.mdCtxNew() else {
            _ = OpenSSL.drainErrors()
            return false
        }
        defer { ssl.mdCtxFree(context) }
        guard ssl.digestVerifyInit(context, nil, ssl.sha256(), nil, key) == 1 else {
            _ = OpenSSL.drainErrors()
            return false
        }
        let result = signature.withUnsafeBufferPointer { sig in
            message.withUnsafeBufferPointer { input in
                ssl.digestVerify(context, sig.baseAddress, sig.count, input.baseAddress, input.count)
            }
        }
        if result != 1 { _ = OpenSSL.drainErrors() }
        return result == 1
    }

    public var description: String { "RSAPublicKey(\(bits) bits)" }
}
