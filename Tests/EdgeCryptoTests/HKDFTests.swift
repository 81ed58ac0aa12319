@testable import EdgeCrypto
import CLibCrypto
import XCTest

/// RFC 5869 appendix A, test cases 1–3 (the SHA-256 ones).
final class HKDFTests: XCTestCase {
    func testRFC5869Case1() throws {
        let okm = try HKDF.deriveKey(inputKeyMaterial: SecureBytes([UInt8](repeating: 0x0b, count: 22)),
                                     salt: hex("000102030405060708090a0b0c"), info: hex("f0f1f2f3f4f5f6f7f8f9"),
                                     outputByteCount: 42)
        XCTAssertEqual(array(okm), hex("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"))
    }

    func testRFC5869Case2LongInputs() throws {
        let okm = try HKDF.deriveKey(inputKeyMaterial: SecureBytes(Array(0x00...0x4f)),
                                     salt: Array(0x60...0xaf), info: Array(0xb0...0xff), outputByteCount: 82)
        XCTAssertEqual(array(okm), hex("""
            b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c59045a99cac7827271cb41c65e590e09
            da3275600c2f09b8367793a9aca3db71cc30c58179ec3e87c14c01d5c1f3434f1d87
            """))
    }

    func testRFC5869Case3EmptySaltAndInfo() throws {
        let okm = try HKDF.deriveKey(inputKeyMaterial: SecureBytes([UInt8](repeating: 0x0b, count: 22)),
                                     salt: [], info: [], outputByteCount: 42)
        XCTAssertEqual(array(okm), hex("8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"))
    }

    func testDefaultOutputIsAKey() throws {
        let okm = try HKDF.deriveKey(inputKeyMaterial: SecureBytes(count: 32), salt: [1], info: Array("vault".utf8))
        XCTAssertEqual(okm.count, 32)
        XCTAssertNoThrow(try SymmetricKey(bytes: okm))
    }

    func testInfoSeparatesKeys() throws {
        let ikm = try Random.secureBytes(32)
        let a = try HKDF.deriveKey(inputKeyMaterial: ikm, salt: [], info: Array("a".utf8))
        let b = try HKDF.deriveKey(inputKeyMaterial: ikm, salt: [], info: Array("b".utf8))
        XCTAssertNotEqual(a, b)
        XCTAssertEqual(a, try HKDF.deriveKey(inputKeyMaterial: ikm, salt: [], info: Array("a".utf8)))
    }

    func testOutputLengthLimits() throws {
        let ikm = SecureBytes(count: 32)
        for bad in [-1, 0, HKDF.maxOutputByteCount + 1] {
            assertThrows(.invalidLength) { () throws(CryptoError) in
                try HKDF.deriveKey(inputKeyMaterial: ikm, salt: [], info: [], outputByteCount: bad)
            }
        }
        XCTAssertEqual(try HKDF.deriveKey(inputKeyMaterial: ikm, salt: [], info: [], outputByteCount: 1).count, 1)
        XCTAssertEqual(try HKDF.deriveKey(inputKeyMaterial: ikm, salt: [], info: [], outputByteCount: 8160).count, 8160)
    }

    /// The parameter names are static literals (OSSL_PARAM keeps the pointer); they must stay
    /// equal to OpenSSL's own macros.
    func testParameterNamesMatchOpenSSL() {
        XCTAssertEqual(OSSLParamName.digest.string, OSSL_KDF_PARAM_DIGEST)
        XCTAssertEqual(OSSLParamName.key.string, OSSL_KDF_PARAM_KEY)
        XCTAssertEqual(OSSLParamName.salt.string, OSSL_KDF_PARAM_SALT)
        XCTAssertEqual(OSSLParamName.info.string, OSSL_KDF_PARAM_INFO)
        XCTAssertEqual(OSSLParamName.sha256.string, SN_sha256)
    }
}

extension HKDFTests {
    /// RFC 5869 allows zero-length input keying material; OpenSSL accepts it, and so do we.
    func testEmptyInputKeyMaterialIsAllowed() throws {
        let okm = try HKDF.deriveKey(inputKeyMaterial: SecureBytes([]), salt: [], info: [])
        XCTAssertEqual(okm.count, 32)
    }
}
