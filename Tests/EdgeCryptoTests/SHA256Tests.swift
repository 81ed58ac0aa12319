import EdgeCrypto
import XCTest

/// FIPS 180-2 appendix B examples.
final class SHA256Tests: XCTestCase {
    func testABC() {
        XCTAssertEqual(SHA256.hash(Array("abc".utf8)),
                       hex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"))
    }

    func testEmptyString() {
        XCTAssertEqual(SHA256.hash([]), hex("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"))
    }

    func testTwoBlockMessage() {
        let message = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        XCTAssertEqual(SHA256.hash(message), hex("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"))
    }

    func testMillionAs() {
        XCTAssertEqual(SHA256.hash([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)),
                       hex("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"))
    }
}
