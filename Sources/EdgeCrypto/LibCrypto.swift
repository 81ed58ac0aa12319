import CLibCrypto
import EdgeCore
import Glibc

/// OpenSSL's libcrypto, loaded with `dlopen` the first time EdgeCrypto needs it, and the
/// functions EdgeCrypto calls, resolved with `dlsym`.
///
/// Decision: not linked. Debian builds libcrypto with BIND_NOW, so linking it makes the dynamic
/// loader map it and resolve its relocations at every start of `edge`: ~0.6 ms measured (with
/// tpm2-tss, which needs it, ~1.0 ms: 1.9 -> 2.9 ms for a trivial program), a large share of
/// `edge scan --image`'s whole run (SCN-12), which never encrypts. Every name below is a real
/// exported function of libcrypto.so.3 (none is a macro), checked with `nm -D`.
struct LibCrypto: @unchecked Sendable {
    // @unchecked: function pointers into a library that is never unloaded.
    typealias PasswordCallback = @convention(c) (UnsafeMutablePointer<CChar>?, Int32, Int32, UnsafeMutableRawPointer?) -> Int32
    typealias CipherInit = @convention(c) (OpaquePointer?, OpaquePointer?, OpaquePointer?, UnsafePointer<UInt8>?, UnsafePointer<UInt8>?) -> Int32
    typealias CipherUpdate = @convention(c) (OpaquePointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Int32>?, UnsafePointer<UInt8>?, Int32) -> Int32
    typealias CipherFinal = @convention(c) (OpaquePointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Int32>?) -> Int32

    /// Debian 12's libssl3 (OpenSSL 3.0).
    static let soname = "libcrypto.so.3"
    static let debianPackage = "libssl3"

    // AES-256-GCM (EVP cipher API).
    let cipherCtxNew: @convention(c) () -> OpaquePointer?
    let cipherCtxFree: @convention(c) (OpaquePointer?) -> Void
    let cipherCtxCtrl: @convention(c) (OpaquePointer?, Int32, Int32, UnsafeMutableRawPointer?) -> Int32
    let encryptInit: CipherInit
    let decryptInit: CipherInit
    let encryptUpdate: CipherUpdate
    let decryptUpdate: CipherUpdate
    let encryptFinal: CipherFinal
    let decryptFinal: CipherFinal
    let aes256GCM: @convention(c) () -> OpaquePointer?

    // SHA-256 and RS256.
    let sha256: @convention(c) () -> OpaquePointer?
    let digest: @convention(c) (UnsafeRawPointer?, Int, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt32>?, OpaquePointer?, OpaquePointer?) -> Int32
    let mdCtxNew: @convention(c) () -> OpaquePointer?
    let mdCtxFree: @convention(c) (OpaquePointer?) -> Void
    let digestSignInit: @convention(c) (OpaquePointer?, UnsafeMutablePointer<OpaquePointer?>?, OpaquePointer?, OpaquePointer?, OpaquePointer?) -> Int32
    let digestSign: @convention(c) (OpaquePointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Int>?, UnsafePointer<UInt8>?, Int) -> Int32
    let digestVerifyInit: @convention(c) (OpaquePointer?, UnsafeMutablePointer<OpaquePointer?>?, OpaquePointer?, OpaquePointer?, OpaquePointer?) -> Int32
    let digestVerify: @convention(c) (OpaquePointer?, UnsafePointer<UInt8>?, Int, UnsafePointer<UInt8>?, Int) -> Int32

    // HKDF (EVP_KDF with OSSL_PARAM arrays).
    let kdfFetch: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> OpaquePointer?
    let kdfFree: @convention(c) (OpaquePointer?) -> Void
    let kdfCtxNew: @convention(c) (OpaquePointer?) -> OpaquePointer?
    let kdfCtxFree: @convention(c) (OpaquePointer?) -> Void
    let kdfDerive: @convention(c) (OpaquePointer?, UnsafeMutablePointer<UInt8>?, Int, UnsafePointer<OSSL_PARAM>?) -> Int32
    let paramUTF8String: @convention(c) (UnsafePointer<CChar>?, UnsafeMutablePointer<CChar>?, Int) -> OSSL_PARAM
    let paramOctetString: @convention(c) (UnsafePointer<CChar>?, UnsafeMutableRawPointer?, Int) -> OSSL_PARAM
    let paramEnd: @convention(c) () -> OSSL_PARAM

    // RSA keys (EVP_PKEY) and their PEM form through memory BIOs.
    let pkeyFree: @convention(c) (OpaquePointer?) -> Void
    let pkeyGetBaseID: @convention(c) (OpaquePointer?) -> Int32
    let pkeyGetBits: @convention(c) (OpaquePointer?) -> Int32
    let pkeyCtxNewID: @convention(c) (Int32, OpaquePointer?) -> OpaquePointer?
    let pkeyCtxFree: @convention(c) (OpaquePointer?) -> Void
    let pkeyKeygenInit: @convention(c) (OpaquePointer?) -> Int32
    let pkeyCtxSetRSAKeygenBits: @convention(c) (OpaquePointer?, Int32) -> Int32
    let pkeyKeygen: @convention(c) (OpaquePointer?, UnsafeMutablePointer<OpaquePointer?>?) -> Int32
    let bioNew: @convention(c) (OpaquePointer?) -> OpaquePointer?
    let bioNewMemBuf: @convention(c) (UnsafeRawPointer?, Int32) -> OpaquePointer?
    let bioFree: @convention(c) (OpaquePointer?) -> Int32
    let bioMemMethod: @convention(c) () -> OpaquePointer?
    let bioSecureMemMethod: @convention(c) () -> OpaquePointer?
    let bioCtrlPending: @convention(c) (OpaquePointer?) -> Int
    let bioRead: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32) -> Int32
    let pemReadPrivateKey: @convention(c) (OpaquePointer?, UnsafeMutablePointer<OpaquePointer?>?, PasswordCallback?, UnsafeMutableRawPointer?) -> OpaquePointer?
    let pemReadPublicKey: @convention(c) (OpaquePointer?, UnsafeMutablePointer<OpaquePointer?>?, PasswordCallback?, UnsafeMutableRawPointer?) -> OpaquePointer?
    let pemWritePrivateKey: @convention(c) (OpaquePointer?, OpaquePointer?, OpaquePointer?, UnsafePointer<UInt8>?, Int32, PasswordCallback?, UnsafeMutableRawPointer?) -> Int32
    let pemWritePublicKey: @convention(c) (OpaquePointer?, OpaquePointer?) -> Int32

    // CSPRNG, constant-time comparison, the thread's error queue.
    let randBytes: @convention(c) (UnsafeMutablePointer<UInt8>?, Int32) -> Int32
    let memcmp: @convention(c) (UnsafeRawPointer?, UnsafeRawPointer?, Int) -> Int32
    let errGetError: @convention(c) () -> UInt
    let errPeekError: @convention(c) () -> UInt
    let errClearError: @convention(c) () -> Void
    let errErrorStringN: @convention(c) (UInt, UnsafeMutablePointer<CChar>?, Int) -> Void

    /// The process's one copy, or why it could not be loaded.
    static let shared: Result<LibCrypto, CryptoError> = load()

    /// `soname` is a parameter only so a test can show what a missing library reports.
    static func load(soname: String = soname) -> Result<LibCrypto, CryptoError> {
        do {
            return .success(try LibCrypto(try SharedLibrary(soname, role: "crypto library", package: debianPackage, code: .libraryFailure)))
        } catch {
            return .failure(error)
        }
    }

    private init(_ library: SharedLibrary<CryptoErrorCode>) throws(CryptoError) {
        func resolve<F>(_ name: String) throws(CryptoError) -> F { try library.function(name, why: "it is not OpenSSL 3") }
        cipherCtxNew = try resolve("EVP_CIPHER_CTX_new")
        cipherCtxFree = try resolve("EVP_CIPHER_CTX_free")
        cipherCtxCtrl = try resolve("EVP_CIPHER_CTX_ctrl")
        encryptInit = try resolve("EVP_EncryptInit_ex")
        decryptInit = try resolve("EVP_DecryptInit_ex")
        encryptUpdate = try resolve("EVP_EncryptUpdate")
        decryptUpdate = try resolve("EVP_DecryptUpdate")
        encryptFinal = try resolve("EVP_EncryptFinal_ex")
        decryptFinal = try resolve("EVP_DecryptFinal_ex")
        aes256GCM = try resolve("EVP_aes_256_gcm")

        sha256 = try resolve("EVP_sha256")
        digest = try resolve("EVP_Digest")
        mdCtxNew = try resolve("EVP_MD_CTX_new")
        mdCtxFree = try resolve("EVP_MD_CTX_free")
        digestSignInit = try resolve("EVP_DigestSignInit")
        digestSign = try resolve("EVP_DigestSign")
        digestVerifyInit = try resolve("EVP_DigestVerifyInit")
        digestVerify = try resolve("EVP_DigestVerify")

        kdfFetch = try resolve("EVP_KDF_fetch")
        kdfFree = try resolve("EVP_KDF_free")
        kdfCtxNew = try resolve("EVP_KDF_CTX_new")
        kdfCtxFree = try resolve("EVP_KDF_CTX_free")
        kdfDerive = try resolve("EVP_KDF_derive")
        paramUTF8String = try resolve("OSSL_PARAM_construct_utf8_string")
        paramOctetString = try resolve("OSSL_PARAM_construct_octet_string")
        paramEnd = try resolve("OSSL_PARAM_construct_end")

        pkeyFree = try resolve("EVP_PKEY_free")
        pkeyGetBaseID = try resolve("EVP_PKEY_get_base_id")
        pkeyGetBits = try resolve("EVP_PKEY_get_bits")
        pkeyCtxNewID = try resolve("EVP_PKEY_CTX_new_id")
        pkeyCtxFree = try resolve("EVP_PKEY_CTX_free")
        pkeyKeygenInit = try resolve("EVP_PKEY_keygen_init")
        pkeyCtxSetRSAKeygenBits = try resolve("EVP_PKEY_CTX_set_rsa_keygen_bits")
        pkeyKeygen = try resolve("EVP_PKEY_keygen")
        bioNew = try resolve("BIO_new")
        bioNewMemBuf = try resolve("BIO_new_mem_buf")
        bioFree = try resolve("BIO_free")
        bioMemMethod = try resolve("BIO_s_mem")
        bioSecureMemMethod = try resolve("BIO_s_secmem")
        bioCtrlPending = try resolve("BIO_ctrl_pending")
        bioRead = try resolve("BIO_read")
        pemReadPrivateKey = try resolve("PEM_read_bio_PrivateKey")
        pemReadPublicKey = try resolve("PEM_read_bio_PUBKEY")
        pemWritePrivateKey = try resolve("PEM_write_bio_PrivateKey")
        pemWritePublicKey = try resolve("PEM_write_bio_PUBKEY")

        randBytes = try resolve("RAND_bytes")
        memcmp = try resolve("CRYPTO_memcmp")
        errGetError = try resolve("ERR_get_error")
        errPeekError = try resolve("ERR_peek_error")
        errClearError = try resolve("ERR_clear_error")
        errErrorStringN = try resolve("ERR_error_string_n")
    }
}
