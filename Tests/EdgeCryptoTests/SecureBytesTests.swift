import EdgeCrypto
import XCTest

final class SecureBytesTests: XCTestCase {
    private let secret: [UInt8] = Array("hunter2-\u{AB}".utf8) + [0xAB, 0xCD, 0xEF]

    func testHoldsACopy() {
        var source = secret
        let bytes = SecureBytes(source)
        source[0] = 0
        XCTAssertEqual(array(bytes), secret)
        XCTAssertEqual(bytes.count, secret.count)
        XCTAssertEqual(SecureBytes(count: 5).withUnsafeBytes { Array($0) }, [0, 0, 0, 0, 0])
        XCTAssertEqual(SecureBytes(count: 0).count, 0)
    }

    func testNeverPrintsItsBytes() throws {
        let bytes = SecureBytes(secret)
        var dumped = ""
        dump(bytes, to: &dumped)
        let key = try SymmetricKey(bytes: SecureBytes([UInt8](repeating: 0xAB, count: 32)))
        var dumpedKey = ""
        dump(key, to: &dumpedKey)
        for text in [bytes.description, bytes.debugDescription, "\(bytes)", String(reflecting: bytes), dumped,
                     String(describing: key), dumpedKey] {
            XCTAssertFalse(text.contains("hunter2"), text)
            XCTAssertFalse(text.lowercased().contains("ab"), text)
            XCTAssertFalse(text.contains("171"), text)
            XCTAssertFalse(text.contains("239"), text)
        }
        XCTAssertEqual(bytes.description, "SecureBytes(\(secret.count) bytes)")
        XCTAssertEqual(Mirror(reflecting: bytes).children.map(\.label), ["count"])
    }

    func testEquality() {
        XCTAssertEqual(SecureBytes(secret), SecureBytes(secret))
        XCTAssertNotEqual(SecureBytes(secret), SecureBytes(secret.dropLast() + [0]))
        XCTAssertNotEqual(SecureBytes(secret), SecureBytes(secret + [0]))
        XCTAssertEqual(SecureBytes([]), SecureBytes(count: 0))
        XCTAssertNotEqual(SecureBytes([]), SecureBytes([0]))
    }

    func testCopyOnWrite() {
        let original = SecureBytes(secret)
        var copy = original
        copy.withUnsafeMutableBytes { $0[0] = 0 }
        XCTAssertEqual(array(original), secret)
        XCTAssertEqual(array(copy).first, 0)
    }

    /// `zeroize()` wipes in place. The wipe at deallocation (the same OPENSSL_cleanse, in the
    /// storage's deinit) cannot be observed from a test: reading memory after it is freed is
    /// undefined behaviour and the allocator may reuse it at once.
    func testZeroizeWipesStorage() {
        var bytes = SecureBytes(secret)
        bytes.zeroize()
        XCTAssertEqual(bytes.count, secret.count)
        XCTAssertTrue(bytes.withUnsafeBytes { $0.allSatisfy { $0 == 0 } })
    }

    func testZeroizeLeavesOtherCopies() {
        let original = SecureBytes(secret)
        var copy = original
        copy.zeroize()
        XCTAssertEqual(array(original), secret)
        XCTAssertEqual(array(copy), [UInt8](repeating: 0, count: secret.count))
    }

    func testSendableAcrossTasks() async {
        let bytes = SecureBytes(secret)
        let count = await Task.detached { bytes.count }.value
        XCTAssertEqual(count, secret.count)
    }
}
