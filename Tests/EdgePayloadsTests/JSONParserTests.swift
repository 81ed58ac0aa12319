import XCTest
@testable import EdgePayloads

final class JSONParserTests: XCTestCase {
    private func parse(_ text: String) throws -> JSONValue { try JSONParser.parse(Array(text.utf8)) }

    func testParsesAllValueKinds() throws {
        XCTAssertEqual(try parse(#" {"a": [1, -2.5e3, true, false, null, "x\n\u00e9\ud83d\ude00"]} "#),
                       .object(["a": .array([.number("1"), .number("-2.5e3"), .bool(true), .bool(false), .null,
                                             .string("x\né😀")])]))
        XCTAssertEqual(try parse("\"\\\"\\\\\\/\\b\\f\\r\\t\""), .string("\"\\/\u{8}\u{C}\r\t"))
        XCTAssertEqual(try parse("{}"), .object([:]))
        XCTAssertEqual(try parse("[]"), .array([]))
    }

    func testRefusesInvalidJSON() {
        for text in ["", "{", "[1,]", "{\"a\":1,}", "{a:1}", "01", "1.", "-", "tru", "\"\\x\"", "\"abc", "[1] 2",
                     "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"\u{1}\"", "'a'", "NaN"] {
            XCTAssertThrowsError(try parse(text), text)
        }
    }

    func testRefusesDuplicateKeys() {
        XCTAssertThrowsError(try parse(#"{"a":1,"a":2}"#)) { error in
            XCTAssertEqual((error as? JSONParseError)?.code, .duplicateKey)
        }
        // Escaped spelling of the same key is the same key.
        XCTAssertThrowsError(try parse(#"{"a_b":1,"a\u005fb":2}"#))
    }

    func testDepthLimit() throws {
        XCTAssertNoThrow(try JSONParser.parse(Array("[[[]]]".utf8), maxDepth: 3))
        XCTAssertThrowsError(try JSONParser.parse(Array("[[[[]]]]".utf8), maxDepth: 3)) { error in
            XCTAssertEqual((error as? JSONParseError)?.code, .tooDeep)
        }
    }

    func testDepthScanner() {
        XCTAssertFalse(JSONDepthScanner.exceeds(Array("[[{}]]".utf8), limit: 3))
        XCTAssertTrue(JSONDepthScanner.exceeds(Array("[[{[]}]]".utf8), limit: 3))
        // Brackets in strings, including after escaped quotes, do not count.
        XCTAssertFalse(JSONDepthScanner.exceeds(Array(#"["[[[[\"[[[["]"#.utf8), limit: 1))
        let deep = Array(repeating: UInt8(ascii: "["), count: 10_000)
        XCTAssertTrue(JSONDepthScanner.exceeds(deep, limit: 16))
        XCTAssertFalse(JSONDepthScanner.exceeds(Array(repeating: UInt8(ascii: "]"), count: 10_000), limit: 16))
    }
}
