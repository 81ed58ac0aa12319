import EdgeCrypto

/// The station's keyed hash: HKDF-SHA256 over a SHA-256 digest, keyed by the vault's hash key,
/// 16 bytes as hex. Used where a value must be recognised again but never stored: scan payloads
/// (linking codes, ENR-8) and token fingerprints (AGT-6). `salt` separates the uses.
enum KeyedHash {
    static func hex(key: SecureBytes, salt: String, digest: [UInt8]) -> String? {
        guard let derived = try? HKDF.deriveKey(inputKeyMaterial: key, salt: Array(salt.utf8), info: digest, outputByteCount: 16) else {
            return nil
        }
        return derived.withUnsafeBytes { bytes in
            var text = ""
            text.reserveCapacity(32)
            for byte in bytes {
                text.append(hexDigits[Int(byte >> 4)])
                text.append(hexDigits[Int(byte & 0xF)])
            }
            return text
        }
    }

    private static let hexDigits: [Character] = Array("0123456789abcdef")
}
