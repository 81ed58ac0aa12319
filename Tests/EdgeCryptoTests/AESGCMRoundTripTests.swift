import EdgeCrypto
import XCTest

final class AESGCMRoundTripTests: XCTestCase {
    func testRoundTripsAcrossSizes() throws {
        let key = try SymmetricKey.random()
        for size in [0, 1, 15, 16, 17, 31, 32, 33, 1000] {
            let plaintext = try Random.secureBytes(size)
            let aad = try Random.bytes(size % 7)
            let box = try AESGCM.seal(plaintext, using: key, authenticating: aad)
            XCTAssertEqual(box.nonce.count, AESGCM.nonceByteCount)
            XCTAssertEqual(box.tag.count, AESGCM.tagByteCount)
            XCTAssertEqual(box.ciphertext.count, size)
            XCTAssertEqual(try AESGCM.open(box, using: key, authenticating: aad), plaintext, "size \(size)")
        }
    }

    func testEmptyPlaintextStillAuthenticates() throws {
        let key = try SymmetricKey.random()
        let box = try AESGCM.seal(SecureBytes([]), using: key, authenticating: Array("header".utf8))
        XCTAssertEqual(box.ciphertext, [])
        XCTAssertEqual(try AESGCM.open(box, using: key, authenticating: Array("header".utf8)).count, 0)
        assertThrows(.authenticationFailure) { () throws(CryptoError) in
            try AESGCM.open(box, using: key, authenticating: Array("Header".utf8))
        }
    }

    func testOneMebibyte() throws {
        let key = try SymmetricKey.random()
        let plaintext = try Random.secureBytes(1 << 20)
        let box = try AESGCM.seal(plaintext, using: key, authenticating: [])
        XCTAssertEqual(box.ciphertext.count, 1 << 20)
        XCTAssertNotEqual(box.ciphertext, array(plaintext))
        XCTAssertEqual(try AESGCM.open(box, using: key, authenticating: []), plaintext)
    }

    func testDefaultNoncesAreFreshEachSeal() throws {
        let key = try SymmetricKey.random()
        let plaintext = SecureBytes(Array("same secret".utf8))
        let a = try AESGCM.seal(plaintext, using: key, authenticating: [])
        let b = try AESGCM.seal(plaintext, using: key, authenticating: [])
        XCTAssertNotEqual(a.nonce, b.nonce)
        XCTAssertNotEqual(a.ciphertext, b.ciphertext)
    }

    func testGivenNonceIsUsed() throws {
        let key = try SymmetricKey.random()
        let nonce = try Random.bytes(12)
        let box = try AESGCM.seal(SecureBytes([1, 2, 3]), using: key, nonce: nonce, authenticating: [])
        XCTAssertEqual(box.nonce, nonce)
        XCTAssertEqual(array(try AESGCM.open(box, using: key, authenticating: [])), [1, 2, 3])
    }
}
