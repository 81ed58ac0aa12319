import EdgeCrypto
import XCTest

final class RandomTests: XCTestCase {
    func testLengthsHonoured() throws {
        for count in [0, 1, 12, 32, 1000, 65_537] {
            XCTAssertEqual(try Random.bytes(count).count, count)
            XCTAssertEqual(try Random.secureBytes(count).count, count)
        }
    }

    func testCallsDiffer() throws {
        XCTAssertNotEqual(try Random.bytes(32), try Random.bytes(32))
        XCTAssertNotEqual(try Random.secureBytes(32), try Random.secureBytes(32))
        let a = try SymmetricKey.random(), b = try SymmetricKey.random()
        XCTAssertNotEqual(a.bytes, b.bytes)
    }

    /// Not a statistical test; catches a buffer left unfilled (all zeros).
    func testBufferIsFilled() throws {
        let bytes = try Random.bytes(4096)
        XCTAssertGreaterThan(Set(bytes).count, 200)
    }

    func testNegativeCountRefused() {
        assertThrows(.invalidLength) { () throws(CryptoError) in try Random.bytes(-1) }
        assertThrows(.invalidLength) { () throws(CryptoError) in try Random.secureBytes(-1) }
    }
}
