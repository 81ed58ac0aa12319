import CLibCrypto

/// HKDF-SHA256 (RFC 5869), extract-then-expand, through OpenSSL's EVP_KDF "HKDF".
public enum HKDF {
    /// RFC 5869 limit: 255 blocks of the hash length.
    public static let maxOutputByteCount = 255 * SHA256.byteCount

    /// Derives `outputByteCount` (1...8160) bytes. An empty `salt` means RFC 5869's default
    /// (32 zero bytes); an empty `info` means no context; empty key material is allowed, as in
    /// RFC 5869. Throws `.invalidLength` for an out-of-range count, `.libraryFailure` if OpenSSL
    /// fails.
    public static func deriveKey(inputKeyMaterial: SecureBytes, salt: [UInt8], info: [UInt8],
                                 outputByteCount: Int = 32) throws(CryptoError) -> SecureBytes {
        guard (1...maxOutputByteCount).contains(outputByteCount) else {
            throw CryptoError(.invalidLength, "HKDF-SHA256 output must be 1 to \(maxOutputByteCount) bytes, got \(outputByteCount)",
                              context: ["outputByteCount": "\(outputByteCount)"])
        }
        let ssl = try OpenSSL.library
        let kdf = try OpenSSL.nonNull(ssl.kdfFetch(nil, "HKDF", nil), "EVP_KDF_fetch", "OpenSSL has no HKDF implementation")
        defer { ssl.kdfFree(kdf) }
        let context = try OpenSSL.nonNull(ssl.kdfCtxNew(kdf), "EVP_KDF_CTX_new", "could not create an HKDF context")
        defer { ssl.kdfCtxFree(context) }

        var output = SecureBytes(count: outputByteCount)
        let result = inputKeyMaterial.withUnsafeBytes { ikm in
            salt.withUnsafeBytes { salt in
                info.withUnsafeBytes { info in
                    output.withUnsafeMutableBytes { out in
                        var params = [
                            utf8String(OSSLParamName.digest, OSSLParamName.sha256, ssl),
                            octetString(OSSLParamName.key, ikm, ssl),
                        ]
                        // Absent rather than zero-length: OpenSSL then applies RFC 5869's defaults.
                        if !salt.isEmpty { params.append(octetString(OSSLParamName.salt, salt, ssl)) }
                        if !info.isEmpty { params.append(octetString(OSSLParamName.info, info, ssl)) }
                        params.append(ssl.paramEnd())
                        return ssl.kdfDerive(context, out.baseAddress?.assumingMemoryBound(to: UInt8.self), out.count, &params)
                    }
                }
            }
        }
        guard result == 1 else {
            output.zeroize()
            throw OpenSSL.failure("EVP_KDF_derive", "HKDF-SHA256 derivation failed")
        }
        return output
    }

    /// OSSL_PARAM_construct_utf8_string; a size of 0 makes OpenSSL use strlen. OpenSSL only reads
    /// the value, hence the `mutating` cast.
    private static func utf8String(_ name: OSSLParamName, _ value: OSSLParamName, _ ssl: LibCrypto) -> OSSL_PARAM {
        ssl.paramUTF8String(name.cString, UnsafeMutablePointer(mutating: value.cString), 0)
    }

    /// OSSL_PARAM_construct_octet_string. OpenSSL copies the bytes when the parameters are
    /// applied; it never writes through the pointer, hence the `mutating` cast.
    private static func octetString(_ name: OSSLParamName, _ bytes: UnsafeRawBufferPointer, _ ssl: LibCrypto) -> OSSL_PARAM {
        ssl.paramOctetString(name.cString, UnsafeMutableRawPointer(mutating: bytes.baseAddress), bytes.count)
    }
}
