import EdgeCrypto
import XCTest

/// VLT-4: every altered input is an authentication failure, never output.
final class AESGCMTamperTests: XCTestCase {
    private let aad = Array("EDGV header + device + name".utf8)
    private let secret = "refresh-token-0123456789abcdefghijklmnopqrstuvwxyz"

    /// A fresh key and the secret sealed under it.
    private func sealed() throws -> (key: SymmetricKey, box: AESGCM.SealedBox) {
        let key = try SymmetricKey.random()
        return (key, try AESGCM.seal(SecureBytes(Array(secret.utf8)), using: key, authenticating: aad))
    }

    func testUntamperedOpens() throws {
        let (key, box) = try sealed()
        XCTAssertEqual(String(decoding: array(try AESGCM.open(box, using: key, authenticating: aad)), as: UTF8.self), secret)
    }

    func testEveryCiphertextByteFlip() throws {
        let (key, box) = try sealed()
        for i in box.ciphertext.indices {
            var c = box.ciphertext
            c[i] ^= 0x01
            try expectFailure(key, nonce: box.nonce, ciphertext: c, tag: box.tag, aad: aad, "ciphertext byte \(i)")
        }
    }

    func testEveryTagByteFlip() throws {
        let (key, box) = try sealed()
        for i in box.tag.indices {
            var t = box.tag
            t[i] ^= 0x80
            try expectFailure(key, nonce: box.nonce, ciphertext: box.ciphertext, tag: t, aad: aad, "tag byte \(i)")
        }
    }

    func testEveryNonceByteFlip() throws {
        let (key, box) = try sealed()
        for i in box.nonce.indices {
            var n = box.nonce
            n[i] ^= 0x01
            try expectFailure(key, nonce: n, ciphertext: box.ciphertext, tag: box.tag, aad: aad, "nonce byte \(i)")
        }
    }

    func testEveryAADByteFlipAndLengthChange() throws {
        let (key, box) = try sealed()
        for i in aad.indices {
            var a = aad
            a[i] ^= 0x01
            try expectFailure(key, nonce: box.nonce, ciphertext: box.ciphertext, tag: box.tag, aad: a, "aad byte \(i)")
        }
        try expectFailure(key, nonce: box.nonce, ciphertext: box.ciphertext, tag: box.tag, aad: aad + [0], "aad extended")
        try expectFailure(key, nonce: box.nonce, ciphertext: box.ciphertext, tag: box.tag, aad: Array(aad.dropLast()), "aad truncated")
        try expectFailure(key, nonce: box.nonce, ciphertext: box.ciphertext, tag: box.tag, aad: [], "aad removed")
    }

    func testTruncatedOrExtendedCiphertext() throws {
        let (key, box) = try sealed()
        try expectFailure(key, nonce: box.nonce, ciphertext: Array(box.ciphertext.dropLast()), tag: box.tag, aad: aad, "truncated")
        try expectFailure(key, nonce: box.nonce, ciphertext: box.ciphertext + [0], tag: box.tag, aad: aad, "extended")
        try expectFailure(key, nonce: box.nonce, ciphertext: [], tag: box.tag, aad: aad, "emptied")
    }

    func testOtherKey() throws {
        let (_, box) = try sealed()
        let other = try SymmetricKey.random()
        assertThrows(.authenticationFailure) { () throws(CryptoError) in try AESGCM.open(box, using: other, authenticating: self.aad) }
    }

    func testFailureCarriesNoSecret() throws {
        let (key, box) = try sealed()
        var t = box.tag
        t[0] ^= 1
        do {
            _ = try AESGCM.open(try AESGCM.SealedBox(nonce: box.nonce, ciphertext: box.ciphertext, tag: t), using: key, authenticating: aad)
            XCTFail("opened a forged box")
        } catch {
            XCTAssertEqual(error.code, .authenticationFailure)
            let text = error.message + error.context.description
            XCTAssertFalse(text.contains("refresh-token"))
            XCTAssertFalse(text.contains("\n"), "messages are one line")
        }
    }

    private func expectFailure(_ key: SymmetricKey, nonce: [UInt8], ciphertext: [UInt8], tag: [UInt8], aad: [UInt8], _ what: String,
                               file: StaticString = #filePath, line: UInt = #line) throws {
        let forged = try AESGCM.SealedBox(nonce: nonce, ciphertext: ciphertext, tag: tag)
        do {
            let plaintext = try AESGCM.open(forged, using: key, authenticating: aad)
            XCTFail("\(what): opened to \(plaintext.count) bytes", file: file, line: line)
        } catch {
            XCTAssertEqual(error.code, .authenticationFailure, what, file: file, line: line)
        }
    }
}
