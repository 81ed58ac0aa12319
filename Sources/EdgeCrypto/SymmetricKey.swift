/// An AES-256 key: exactly 32 secret bytes. Printing shows only the byte count (via `SecureBytes`).
public struct SymmetricKey: Sendable {
    public static let byteCount = 32

    public let bytes: SecureBytes

    public init(bytes: SecureBytes) throws(CryptoError) {
        guard bytes.count == Self.byteCount else {
            throw CryptoError(.invalidKeySize, "an AES-256 key must be \(Self.byteCount) bytes, got \(bytes.count)",
                              context: ["expected": "\(Self.byteCount)", "actual": "\(bytes.count)"])
        }
        self.bytes = bytes
    }

    /// A fresh key from the OpenSSL CSPRNG.
    public static func random() throws(CryptoError) -> SymmetricKey {
        try SymmetricKey(bytes: Random.secureBytes(byteCount))
    }
}
