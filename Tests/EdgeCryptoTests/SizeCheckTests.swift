import EdgeCrypto
import XCTest

/// Wrong sizes are refused with the size error, before any crypto runs.
final class SizeCheckTests: XCTestCase {
    func testKeySizes() {
        for size in [0, 16, 31, 33, 64] {
            assertThrows(.invalidKeySize) { () throws(CryptoError) in try SymmetricKey(bytes: SecureBytes(count: size)) }
        }
        XCTAssertNoThrow(try SymmetricKey(bytes: SecureBytes(count: 32)))
    }

    func testSealRefusesNonceSizes() throws {
        let key = try SymmetricKey.random()
        for size in [0, 8, 11, 13, 16] {
            assertThrows(.invalidNonceSize) { () throws(CryptoError) in
                try AESGCM.seal(SecureBytes([1]), using: key, nonce: [UInt8](repeating: 0, count: size), authenticating: [])
            }
        }
    }

    func testSealedBoxRefusesNonceAndTagSizes() {
        let nonce = [UInt8](repeating: 0, count: 12), tag = [UInt8](repeating: 0, count: 16)
        for size in [0, 11, 13] {
            assertThrows(.invalidNonceSize) { () throws(CryptoError) in
                try AESGCM.SealedBox(nonce: [UInt8](repeating: 0, count: size), ciphertext: [], tag: tag)
            }
        }
        for size in [0, 12, 15, 17] {
            assertThrows(.invalidTagSize) { () throws(CryptoError) in
                try AESGCM.SealedBox(nonce: nonce, ciphertext: [1, 2], tag: [UInt8](repeating: 0, count: size))
            }
        }
        // The nonce is checked first, so a box wrong in both ways reports the nonce.
        assertThrows(.invalidNonceSize) { () throws(CryptoError) in try AESGCM.SealedBox(nonce: [], ciphertext: [], tag: []) }
    }

    func testErrorMessagesAreOneLineWithSizes() {
        do {
            _ = try SymmetricKey(bytes: SecureBytes([7, 7, 7]))
            XCTFail("accepted a 3-byte key")
        } catch {
            XCTAssertEqual(error.context["actual"], "3")
            XCTAssertFalse(error.message.contains("\n"))
            XCTAssertFalse(error.message.contains("7, 7"))
        }
    }
}
