import EdgeScanning
import XCTest

final class CheckDigitsTests: XCTestCase {
    func testEAN13() {
        XCTAssertTrue(CheckDigits.isValidEAN13(Array("4006381333931".utf8)))
        XCTAssertTrue(CheckDigits.isValidEAN13(Array("9780804816632".utf8)))
        XCTAssertFalse(CheckDigits.isValidEAN13(Array("4006381333932".utf8)))
        XCTAssertFalse(CheckDigits.isValidEAN13(Array("400638133393".utf8)))
        XCTAssertFalse(CheckDigits.isValidEAN13(Array("40063813339A1".utf8)))
        XCTAssertEqual(CheckDigits.gtin13(Array("400638133393".utf8)), UInt8(ascii: "1"))
    }

    func testCode39Mod43() {
        // C12 + O24 + D13 + E14 + space38 + 3 + 9 = 113; 113 mod 43 = 27 = "R".
        XCTAssertEqual(CheckDigits.code39Mod43(Array("CODE 39".utf8)), UInt8(ascii: "R"))
        XCTAssertEqual(CheckDigits.code39Mod43(Array("0".utf8)), UInt8(ascii: "0"))
        XCTAssertNil(CheckDigits.code39Mod43(Array("lower".utf8)))
    }
}
