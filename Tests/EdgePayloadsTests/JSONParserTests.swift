import XCTest
@testable import EdgePayloads

final class JSONParserTests: XCTestCase {
    private func parse(_ text: String) throws -> JSONValue { try JSONParser.parse(Array(text.utf8)) }

    func testParsesAllValueKinds() throws {
        XCTAssertEqual(try parse(#" {"a": [1, -2.5e3, true, false, null, "x\n\u00e9\ud83d\ude00"]} "#),
                       .object(["a": .array([.number("1"), .number("-2.5e3"), .bool(true), .bool(false), .null,
                                             .string("x\né😀")])]))
        // \b and \f decode to controls, which values refuse (testRefusesControlCharactersInValues).
        XCTAssertEqual(try parse("\"\\\"\\\\\\/\\r\\t\""), .string("\"\\/\r\t"))
        XCTAssertEqual(try parse("{}"), .object([:]))
        XCTAssertEqual(try parse("[]"), .array([]))
    }

    func testRefusesInvalidJSON() {
        for text in ["", "{", "[1,]", "{\"a\":1,}", "{a:1}", "01", "1.", "-", "tru", "\"\\x\"", "\"abc", "[1] 2",
                     "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"\u{1}\"", "'a'", "NaN"] {
            XCTAssertThrowsError(try parse(text), text)
        }
    }

    /// Issue #16: keys refuse controls and format characters (bidi, zero-width, BOM), escaped or
    /// raw; values refuse NUL and controls other than tab/LF/CR but keep format characters.
    func testRefusesControlAndFormatCharactersInKeys() {
        for text in [#"{"a\u0000":1}"#, #"{"a\n":1}"#, #"{"a\u007f":1}"#, "{\"a\u{85}\":1}",
                     #"{"a\u202e":1}"#, "{\"a\u{202E}\":1}", #"{"\u2066a":1}"#, #"{"a\u200b":1}"#, #"{"a\ufeff":1}"#,
                     #"{"a\u061c":1}"#, #"{"a\u200e":1}"#] {
            XCTAssertThrowsError(try parse(text), text) { error in
                XCTAssertEqual((error as? JSONParseError)?.code, .controlCharacter, text)
            }
        }
        XCTAssertEqual(try parse(#"{"é_ü":1}"#), .object(["é_ü": .number("1")]))
    }

    func testRefusesControlCharactersInValues() {
        for text in [#""a\u0000b""#, "\"a\u{7F}\"", #""\u001b[2J""#, #""\u0085""#, #"["\b"]"#, #"{"k":"\f"}"#] {
            XCTAssertThrowsError(try parse(text), text) { error in
                XCTAssertEqual((error as? JSONParseError)?.code, .controlCharacter, text)
            }
        }
        XCTAssertEqual(try parse(#""a\tb\nc\r""#), .string("a\tb\nc\r"))
        // Emoji sequences need the zero-width joiner (a format character): values keep it.
        XCTAssertEqual(try parse(#""👩\u200d💻""#), .string("👩\u{200D}💻"))
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
