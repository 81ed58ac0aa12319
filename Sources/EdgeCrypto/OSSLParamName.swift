/// Names and string values for OSSL_PARAM arrays. OSSL_PARAM keeps the *pointer* to its name
/// until the call that consumes the array, so names must outlive it: static string literals do,
/// Swift `String` temporaries do not. The values equal OpenSSL's OSSL_KDF_PARAM_DIGEST/_KEY/
/// _SALT/_INFO and SN_sha256 (checked by the tests).
struct OSSLParamName: Sendable {
    static let digest = OSSLParamName("digest")
    static let key = OSSLParamName("key")
    static let salt = OSSLParamName("salt")
    static let info = OSSLParamName("info")
    static let sha256 = OSSLParamName("SHA256")

    let literal: StaticString

    private init(_ literal: StaticString) { self.literal = literal }

    /// NUL-terminated and valid for the life of the process (StaticString.utf8Start; every
    /// literal here has several characters, so it has a pointer representation).
    var cString: UnsafePointer<CChar> {
        UnsafeRawPointer(literal.utf8Start).assumingMemoryBound(to: CChar.self)
    }

    var string: String { literal.description }
}
