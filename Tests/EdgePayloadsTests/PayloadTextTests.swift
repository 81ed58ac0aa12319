import XCTest
@testable import EdgePayloads

final class PayloadTextTests: XCTestCase {
    func testPrepare() {
        XCTAssertEqual(PayloadText.prepare("\u{FEFF} \tabc \r\n"), "abc")
        XCTAssertEqual(PayloadText.prepare("a b"), "a b")
        XCTAssertEqual(PayloadText.prepare(" \n "), "")
        XCTAssertEqual(PayloadText.prepare("\u{FEFF}\u{FEFF}a"), "\u{FEFF}a")
    }

    func testQuotedEscapesAndTruncates() {
        XCTAssertEqual(PayloadText.quoted("a\"b\\c"), #""a\"b\\c""#)
        XCTAssertEqual(PayloadText.quoted("\u{0}é\u{202E}"), #""\u{0000}\u{00E9}\u{202E}""#)
        XCTAssertEqual(PayloadText.quoted(String(repeating: "x", count: 50), limit: 3), "\"xxx…\"")
    }

    func testTaint() {
        XCTAssertNil(PayloadTaint.first(in: "ab\tc\r\n"))
        XCTAssertNil(PayloadTaint.first(in: "\u{FEFF}abc"))
        XCTAssertEqual(PayloadTaint.first(in: "a\u{FEFF}b")?.position, 2)
        XCTAssertEqual(PayloadTaint.first(in: "ab\u{0}c\u{1}"), PayloadTaint(scalar: "\u{0}", position: 3, count: 2))
        XCTAssertEqual(PayloadTaint.removingAll(from: "\u{FEFF}a\u{0}b\u{200B}c"), "\u{FEFF}abc")
    }

    func testUTF8Validator() {
        XCTAssertNil(UTF8Validator.firstInvalidOffset(Array("héllo 😀".utf8)))
        XCTAssertNil(UTF8Validator.firstInvalidOffset([]))
        XCTAssertEqual(UTF8Validator.firstInvalidOffset([0x61, 0xC3]), 1)
        XCTAssertEqual(UTF8Validator.firstInvalidOffset([0x61, 0x62, 0xC0, 0xAF]), 2)
        XCTAssertEqual(UTF8Validator.firstInvalidOffset([0xED, 0xA0, 0x80]), 0)
    }

    func testUUIDText() {
        XCTAssertEqual(UUIDText.canonical("3F2B8C1E-9D4A-4C6B-8E2F-1A2B3C4D5E6F"), "3f2b8c1e-9d4a-4c6b-8e2f-1a2b3c4d5e6f")
        XCTAssertNil(UUIDText.canonical("3f2b8c1e-9d4a-4c6b-8e2f-1a2b3c4d5e6"))
        XCTAssertNil(UUIDText.canonical("3f2b8c1e-9d4a-4c6b-8e2f_1a2b3c4d5e6f"))
        XCTAssertNil(UUIDText.canonical("3f2b8c1e-9d4a-4c6b-8e2f-1a2b3c4d5e6fa"))
    }
}
