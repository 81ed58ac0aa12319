import CLibCrypto

/// AES-256-GCM (NIST SP 800-38D) through OpenSSL's EVP cipher API, with 96-bit nonces and
/// 128-bit tags only.
public enum AESGCM {
    public static let nonceByteCount = 12
    public static let tagByteCount = 16

    /// Encrypts and authenticates `plaintext`, and authenticates `aad`.
    ///
    /// `nonce` defaults to 12 fresh random bytes. Pass one only when it is itself random or
    /// otherwise never reused with this key (known-answer tests, or envelopes whose header,
    /// and so the AAD, must contain the nonce before sealing). A wrong-size nonce throws
    /// `.invalidNonceSize` before any crypto.
    public static func seal(_ plaintext: SecureBytes, using key: SymmetricKey, nonce: [UInt8]? = nil,
                            authenticating aad: [UInt8]) throws(CryptoError) -> SealedBox {
        let nonceBytes: [UInt8]
        if let nonce {
            try SealedBox.checkNonce(nonce)
            nonceBytes = nonce
        } else {
            nonceBytes = try Random.bytes(nonceByteCount)
        }

        let ssl = try OpenSSL.library
        let context = try newContext(ssl)
        defer { ssl.cipherCtxFree(context) }
        try start(context, key, nonceBytes, ssl, ssl.encryptInit, "EVP_EncryptInit_ex")
        try authenticate(aad, context, ssl.encryptUpdate, "EVP_EncryptUpdate")

        var ciphertext = [UInt8](repeating: 0, count: plaintext.count)
        let updated = plaintext.withUnsafeBytes { input in
            ciphertext.withUnsafeMutableBytes { output in update(context, input, output, ssl.encryptUpdate) }
        }
        try OpenSSL.check(updated, "EVP_EncryptUpdate", "AES-256-GCM encryption failed")
        try OpenSSL.check(finish(context, ssl.encryptFinal), "EVP_EncryptFinal_ex", "AES-256-GCM encryption failed")

        var tag = [UInt8](repeating: 0, count: tagByteCount)
        let tagged = tag.withUnsafeMutableBytes { ssl.cipherCtxCtrl(context, EVP_CTRL_GCM_GET_TAG, Int32(tagByteCount), $0.baseAddress) }
        try OpenSSL.check(tagged, "EVP_CIPHER_CTX_ctrl", "could not read the AES-256-GCM tag")
        return try SealedBox(nonce: nonceBytes, ciphertext: ciphertext, tag: tag)
    }

    /// Checks the tag and decrypts. Any mismatch (key, nonce, ciphertext, tag or AAD) throws
    /// `.authenticationFailure`; the decrypted bytes are wiped and never returned in that case.
    public static func open(_ box: SealedBox, using key: SymmetricKey,
                            authenticating aad: [UInt8]) throws(CryptoError) -> SecureBytes {
        // SealedBox's initialiser already enforced the sizes, so nothing is refused here.
        let ssl = try OpenSSL.library
        let context = try newContext(ssl)
        defer { ssl.cipherCtxFree(context) }
        try start(context, key, box.nonce, ssl, ssl.decryptInit, "EVP_DecryptInit_ex")
        try authenticate(aad, context, ssl.decryptUpdate, "EVP_DecryptUpdate")

        var plaintext = SecureBytes(count: box.ciphertext.count)
        let updated = box.ciphertext.withUnsafeBytes { input in
            plaintext.withUnsafeMutableBytes { output in update(context, input, output, ssl.decryptUpdate) }
        }
        guard updated == 1 else {
            plaintext.zeroize()
            throw OpenSSL.failure("EVP_DecryptUpdate", "AES-256-GCM decryption failed")
        }

        var tag = box.tag
        let tagSet = tag.withUnsafeMutableBytes { ssl.cipherCtxCtrl(context, EVP_CTRL_GCM_SET_TAG, Int32(tagByteCount), $0.baseAddress) }
        guard tagSet == 1 else {
            plaintext.zeroize()
            throw OpenSSL.failure("EVP_CIPHER_CTX_ctrl", "could not set the AES-256-GCM tag")
        }

        // EVP_DecryptFinal_ex is where GCM compares tags; failure there is the forgery case.
        guard finish(context, ssl.decryptFinal) == 1 else {
            plaintext.zeroize()
            _ = OpenSSL.drainErrors()
            throw CryptoError(.authenticationFailure,
                              "the data failed authentication: wrong key, wrong context, or it was altered",
                              context: ["ciphertextBytes": "\(box.ciphertext.count)", "aadBytes": "\(aad.count)"])
        }
        return plaintext
    }

    /// EVP_CIPHER_CTX_new. EVP_CIPHER_CTX_free (deferred by every caller) also wipes the key
    /// schedule the context holds.
    private static func newContext(_ ssl: LibCrypto) throws(CryptoError) -> OpaquePointer {
        try OpenSSL.nonNull(ssl.cipherCtxNew(), "EVP_CIPHER_CTX_new", "could not create a cipher context")
    }

    private typealias InitFunction = (OpaquePointer?, OpaquePointer?, OpaquePointer?, UnsafePointer<UInt8>?,
                                      UnsafePointer<UInt8>?) -> Int32

    /// EVP_EncryptInit_ex / EVP_DecryptInit_ex with EVP_aes_256_gcm, whose default IV length is
    /// the 12 bytes `SealedBox` enforces.
    private static func start(_ context: OpaquePointer, _ key: SymmetricKey, _ nonce: [UInt8], _ ssl: LibCrypto,
                              _ function: InitFunction, _ name: StaticString) throws(CryptoError) {
        let result = key.bytes.withUnsafeBytes { keyBytes in
            function(context, ssl.aes256GCM(), nil, keyBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), nonce)
        }
        try OpenSSL.check(result, name, "could not start AES-256-GCM")
    }

    /// Feeds AAD with EVP_EncryptUpdate / EVP_DecryptUpdate and a NULL output buffer.
    private static func authenticate(_ aad: [UInt8], _ context: OpaquePointer, _ function: UpdateFunction,
                                     _ name: StaticString) throws(CryptoError) {
        let result = aad.withUnsafeBytes { update(context, $0, nil, function) }
        try OpenSSL.check(result, name, "could not authenticate the associated data")
    }

    private typealias UpdateFunction = (OpaquePointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Int32>?,
                                        UnsafePointer<UInt8>?, Int32) -> Int32

    /// EVP_EncryptUpdate / EVP_DecryptUpdate take `int` lengths, so long inputs go in chunks.
    /// GCM is a stream mode: each call writes exactly as many bytes as it reads.
    /// A NULL `output` feeds AAD. Returns the first failing result code, or 1.
    private static func update(_ context: OpaquePointer, _ input: UnsafeRawBufferPointer,
                               _ output: UnsafeMutableRawBufferPointer?, _ function: UpdateFunction) -> Int32 {
        guard let inBase = input.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 1 }
        let outBase = output?.baseAddress?.assumingMemoryBound(to: UInt8.self)
        let chunk = 1 << 30
        var offset = 0
        while offset < input.count {
            let n = Swift.min(chunk, input.count - offset)
            var written: Int32 = 0
            let result = function(context, outBase?.advanced(by: offset), &written, inBase.advanced(by: offset), Int32(n))
            guard result == 1 else { return result }
            offset += n
        }
        return 1
    }

    /// EVP_EncryptFinal_ex / EVP_DecryptFinal_ex. GCM writes no bytes here (it computes or
    /// checks the tag), but a block-sized buffer is passed rather than relying on that.
    private static func finish(_ context: OpaquePointer,
                               _ function: (OpaquePointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Int32>?) -> Int32) -> Int32 {
        var scratch = [UInt8](repeating: 0, count: 16)
        var written: Int32 = 0
        return scratch.withUnsafeMutableBufferPointer { function(context, $0.baseAddress, &written) }
    }
}
