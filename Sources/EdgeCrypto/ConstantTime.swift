/// Comparisons whose running time does not depend on where inputs differ, for tags, MACs and
/// key ids an attacker may probe byte by byte.
public enum ConstantTime {
    /// CRYPTO_memcmp over the contents. Different lengths are unequal (lengths are not secret).
    /// Stops the process if libcrypto cannot be loaded (see `OpenSSL.essentialLibrary`).
    public static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        let ssl = OpenSSL.essentialLibrary
        return a.withUnsafeBytes { x in
            b.withUnsafeBytes { y in ssl.memcmp(x.baseAddress, y.baseAddress, x.count) == 0 }
        }
    }
}
