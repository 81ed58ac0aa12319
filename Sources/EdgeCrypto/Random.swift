/// The OpenSSL CSPRNG (RAND_bytes). Failure is reported, never papered over with weaker bytes.
public enum Random {
    /// `count` random bytes (0 allowed). Throws `.invalidLength` for a negative count and
    /// `.randomFailure` when RAND_bytes fails.
    public static func bytes(_ count: Int) throws(CryptoError) -> [UInt8] {
        try checkCount(count)
        let ssl = try OpenSSL.library
        var out = [UInt8](repeating: 0, count: count)
        let result = out.withUnsafeMutableBytes { fill($0, ssl) }
        try check(result)
        return out
    }

    /// Like `bytes(_:)`, but generated straight into wiped-on-release storage, so no ordinary
    /// array ever holds the secret.
    public static func secureBytes(_ count: Int) throws(CryptoError) -> SecureBytes {
        try checkCount(count)
        let ssl = try OpenSSL.library
        var out = SecureBytes(count: count)
        let result = out.withUnsafeMutableBytes { fill($0, ssl) }
        try check(result)
        return out
    }

    private static func checkCount(_ count: Int) throws(CryptoError) {
        guard count >= 0 else {
            throw CryptoError(.invalidLength, "cannot generate a negative number of random bytes", context: ["count": "\(count)"])
        }
    }

    /// RAND_bytes takes an `int` length, so large buffers are filled in chunks.
    /// Returns the first non-success result code, or 1.
    private static func fill(_ buffer: UnsafeMutableRawBufferPointer, _ ssl: LibCrypto) -> Int32 {
        guard let base = buffer.baseAddress else { return 1 }
        let chunk = 1 << 30
        var offset = 0
        while offset < buffer.count {
            let n = Swift.min(chunk, buffer.count - offset)
            let result = ssl.randBytes(base.advanced(by: offset).assumingMemoryBound(to: UInt8.self), Int32(n))
            guard result == 1 else { return result }
            offset += n
        }
        return 1
    }

    private static func check(_ result: Int32) throws(CryptoError) {
        guard result == 1 else {
            throw CryptoError(.randomFailure, "the system random generator (OpenSSL RAND_bytes) failed",
                              context: ["function": "RAND_bytes", "openssl": OpenSSL.drainErrors()])
        }
    }
}
