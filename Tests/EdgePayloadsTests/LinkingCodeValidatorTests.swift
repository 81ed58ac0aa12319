import XCTest
@testable import EdgePayloads

final class LinkingCodeValidatorTests: XCTestCase {
    private func error(_ input: String, _ source: LinkingCodeInputSource = .typed) throws -> LinkingCodeError? {
        let sponsors = try Fixtures.sponsors
        do {
            _ = try LinkingCode(carriedBy: input, source: source, sponsors: sponsors)
            return nil
        } catch {
            return error
        }
    }

    func testExactLookAlikeMessage() throws {
        let expected = "Please check your code. The characters I, 1, O, 0, S, 5, Z, 2 are not used in linking codes."
        XCTAssertEqual(LinkingCodeError.lookAlikeMessage, expected)
        for input in ["AB-CDE-FGHJI", "AB-CDE-FGHJ1", "AB-CDE-FGHJO", "AB-CDE-FGHJ0",
                      "AB-CDE-FGHJS", "AB-CDE-FGHJ5", "AB-CDE-FGHJZ", "AB-CDE-FGHJ2", "ab-cde-fghjo"] {
            let err = try error(input)
            XCTAssertEqual(err?.code, .lookAlikeCharacters, input)
            XCTAssertEqual(err?.message, expected, input)
        }
    }

    func testExactCountMessage() throws {
        XCTAssertEqual(try error("AB-CDE-FGH")?.message, "8/10 characters")
        XCTAssertEqual(try error("AB-CDE-FGH")?.code, .wrongLength)
        XCTAssertEqual(try error("AB-CDE-FGH")?.context["valid_characters"], "8")
        XCTAssertEqual(try error("")?.message, "0/10 characters")
        XCTAssertEqual(try error("ABCDEFGHJKLM")?.message, "12/10 characters")
        XCTAssertEqual(try error("ABCDEFGHJKLMNPQ", .scanned)?.message, "15/10 characters")
    }

    func testExactUnknownPrefixMessage() throws {
        let expected = "This linking code is not recognized. Please verify you have the correct code and try again."
        XCTAssertEqual(try error("XY-CDE-FGHJK")?.message, expected)
        XCTAssertEqual(try error("XY-CDE-FGHJK")?.code, .unknownPrefix)
    }

    func testInvalidCharactersHaveTheirOwnMessage() throws {
        XCTAssertEqual(try error("AB-CDE-FGH#K")?.code, .invalidCharacters)
        XCTAssertEqual(try error("AB-CDE-FGH#K")?.message, LinkingCodeError.invalidCharactersMessage)
        XCTAssertEqual(try error("AB-CDE-FGHJ\u{0}")?.code, .invalidCharacters)
        XCTAssertEqual(try error("AB-CDE-FGHJÄ")?.code, .invalidCharacters)
    }

    func testPrecedenceLookAlikeBeforeInvalidBeforeCountBeforePrefix() throws {
        // look-alike + wrong count + unknown prefix -> look-alike
        XCTAssertEqual(try error("XY-O")?.code, .lookAlikeCharacters)
        // invalid character + wrong count -> invalid character
        XCTAssertEqual(try error("AB#")?.code, .invalidCharacters)
        // look-alike + invalid character -> look-alike
        XCTAssertEqual(try error("AB#0")?.code, .lookAlikeCharacters)
        // wrong count + unknown prefix -> count
        XCTAssertEqual(try error("XY-CDE")?.message, "5/10 characters")
    }

    func testValidCodes() throws {
        let sponsors = try Fixtures.sponsors
        let code = try LinkingCode(carriedBy: "ab-cde-fghjk", source: .typed, sponsors: sponsors)
        XCTAssertEqual(code.value, "ABCDEFGHJK")
        XCTAssertEqual(code.formatted, "AB-CDE-FGHJK")
        XCTAssertEqual(code.prefix, "AB")
        XCTAssertEqual(code.sponsor.sponsorID, "sponsor-a")
        let digits = try LinkingCode(carriedBy: "3467894678", source: .scanned, sponsors: sponsors)
        XCTAssertEqual(digits.sponsor.sponsorID, "sponsor-b")
        XCTAssertEqual(digits.formatted, "34-678-94678")
    }

    func testValidatorDirectlyOnNormalisedText() throws {
        let sponsors = try Fixtures.sponsors
        XCTAssertEqual(try LinkingCodeValidator.validate(normalized: "ABCDEFGHJK", sponsors: sponsors).formatted, "AB-CDE-FGHJK")
        XCTAssertThrowsError(try LinkingCodeValidator.validate(normalized: "ABCDEFGHJK", sponsors: .empty)) { error in
            XCTAssertEqual((error as? LinkingCodeError)?.code, .unknownPrefix)
        }
    }

    func testErrorContextNeverHoldsTheCode() throws {
        for input in ["AB-CDE-FGHJ0", "AB-CDE-FGH", "XY-CDE-FGHJK", "AB-CDE-FGH#K"] {
            let err = try XCTUnwrap(try error(input))
            for value in err.context.values {
                XCTAssertFalse(value.contains("CDE"), "context leaks the code: \(err.context)")
            }
        }
    }
}
