extension AESGCM {
    /// Nonce, ciphertext and tag of one AES-256-GCM message. Sizes are checked on creation, so
    /// a box parsed from untrusted bytes is refused before any crypto runs (VLT-2).
    public struct SealedBox: Sendable, Equatable {
        public let nonce: [UInt8]
        public let ciphertext: [UInt8]
        public let tag: [UInt8]

        /// Throws `.invalidNonceSize` unless `nonce` is 12 bytes and `.invalidTagSize` unless
        /// `tag` is 16 bytes. Any ciphertext length is accepted.
        public init(nonce: [UInt8], ciphertext: [UInt8], tag: [UInt8]) throws(CryptoError) {
            try Self.checkNonce(nonce)
            guard tag.count == AESGCM.tagByteCount else {
                throw CryptoError(.invalidTagSize, "an AES-GCM tag must be \(AESGCM.tagByteCount) bytes, got \(tag.count)",
                                  context: ["expected": "\(AESGCM.tagByteCount)", "actual": "\(tag.count)"])
            }
            self.nonce = nonce
            self.ciphertext = ciphertext
            self.tag = tag
        }

        static func checkNonce(_ nonce: [UInt8]) throws(CryptoError) {
            guard nonce.count == AESGCM.nonceByteCount else {
                throw CryptoError(.invalidNonceSize, "an AES-GCM nonce must be \(AESGCM.nonceByteCount) bytes, got \(nonce.count)",
                                  context: ["expected": "\(AESGCM.nonceByteCount)", "actual": "\(nonce.count)"])
            }
        }
    }
}
