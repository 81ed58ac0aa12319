/// SHA-256 (FIPS 180-4) through EVP_Digest.
public enum SHA256 {
    public static let byteCount = 32

    /// The 32-byte digest of `data`.
    ///
    /// Not throwing, to match swift-crypto. EVP_Digest with the built-in SHA-256 fails only when
    /// OpenSSL cannot allocate or its default provider is unusable; returning anything would then
    /// be a wrong digest, so that case stops the process with OpenSSL's reason instead (as does
    /// a libcrypto that cannot be loaded, see `OpenSSL.essentialLibrary`).
    public static func hash(_ data: [UInt8]) -> [UInt8] {
        let ssl = OpenSSL.essentialLibrary
        var digest = [UInt8](repeating: 0, count: byteCount)
        var length: UInt32 = 0
        let result = digest.withUnsafeMutableBufferPointer { out in
            data.withUnsafeBytes { input in
                ssl.digest(input.baseAddress, input.count, out.baseAddress, &length, ssl.sha256(), nil)
            }
        }
        guard result == 1, length == UInt32(byteCount) else {
            fatalError("EVP_Digest(SHA-256) failed: \(OpenSSL.drainErrors())")
        }
        return digest
    }
}
