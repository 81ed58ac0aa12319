import EdgeCrypto
import XCTest

final class ConstantTimeTests: XCTestCase {
    func testEqual() {
        XCTAssertTrue(ConstantTime.equal([1, 2, 3], [1, 2, 3]))
        XCTAssertTrue(ConstantTime.equal([], []))
    }

    func testDifferentContents() {
        XCTAssertFalse(ConstantTime.equal([1, 2, 3], [1, 2, 4]))
        XCTAssertFalse(ConstantTime.equal([0, 2, 3], [1, 2, 3]))
    }

    func testDifferentLengths() {
        XCTAssertFalse(ConstantTime.equal([1, 2, 3], [1, 2]))
        XCTAssertFalse(ConstantTime.equal([], [0]))
    }
}
