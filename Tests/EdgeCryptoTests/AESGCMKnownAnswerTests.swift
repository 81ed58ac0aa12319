import EdgeCrypto
import XCTest

/// McGrew & Viega, "The Galois/Counter Mode of Operation (GCM)", test cases 13–16: the
/// 256-bit-key, 96-bit-IV vectors (also in NIST's GCM validation set).
final class AESGCMKnownAnswerTests: XCTestCase {
    private let key15 = hex("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308")
    private let iv15 = hex("cafebabefacedbaddecaf888")
    private let plaintext15 = hex("""
        d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72
        1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255
        """)
    private let ciphertext15 = hex("""
        522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa
        8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad
        """)

    func testCase13EmptyPlaintext() throws {
        try check(key: [UInt8](repeating: 0, count: 32), iv: [UInt8](repeating: 0, count: 12), plaintext: [], aad: [],
                  ciphertext: [], tag: hex("530f8afbc74536b9a963b4f1c4cb738b"))
    }

    func testCase14OneZeroBlock() throws {
        try check(key: [UInt8](repeating: 0, count: 32), iv: [UInt8](repeating: 0, count: 12),
                  plaintext: [UInt8](repeating: 0, count: 16), aad: [],
                  ciphertext: hex("cea7403d4d606b6e074ec5d3baf39d18"), tag: hex("d0d1c8a799996bf0265b98b5d48ab919"))
    }

    func testCase15FourBlocks() throws {
        try check(key: key15, iv: iv15, plaintext: plaintext15, aad: [],
                  ciphertext: ciphertext15, tag: hex("b094dac5d93471bdec1a502270e3cc6c"))
    }

    func testCase16PartialBlockWithAAD() throws {
        try check(key: key15, iv: iv15, plaintext: Array(plaintext15.prefix(60)),
                  aad: hex("feedfacedeadbeeffeedfacedeadbeefabaddad2"),
                  ciphertext: Array(ciphertext15.prefix(60)), tag: hex("76fc6ece0f4e1768cddf8853bb2d551b"))
    }

    /// Seals with the given nonce, compares ciphertext and tag, then opens the expected box.
    private func check(key: [UInt8], iv: [UInt8], plaintext: [UInt8], aad: [UInt8], ciphertext: [UInt8], tag: [UInt8],
                       file: StaticString = #filePath, line: UInt = #line) throws {
        let symmetricKey = try SymmetricKey(bytes: SecureBytes(key))
        let box = try AESGCM.seal(SecureBytes(plaintext), using: symmetricKey, nonce: iv, authenticating: aad)
        XCTAssertEqual(box.nonce, iv, file: file, line: line)
        XCTAssertEqual(box.ciphertext, ciphertext, "ciphertext", file: file, line: line)
        XCTAssertEqual(box.tag, tag, "tag", file: file, line: line)
        let expected = try AESGCM.SealedBox(nonce: iv, ciphertext: ciphertext, tag: tag)
        XCTAssertEqual(box, expected, file: file, line: line)
        let opened = try AESGCM.open(expected, using: symmetricKey, authenticating: aad)
        XCTAssertEqual(array(opened), plaintext, file: file, line: line)
    }
}
