import XCTest
@testable import EdgePayloads

/// SCN-13: GS1 element strings parsed into AIs, their check digits, dates and lengths checked,
/// every refusal naming the AI and the reason; bounded on hostile input.
final class GS1ElementStringTests: XCTestCase {
    private static let gs = "\u{1D}"
    private static let year = 2025

    private func parse(_ text: String, year: Int = year) throws(GS1Error) -> GS1ElementString {
        try GS1ElementString.parse(text, referenceYear: year)
    }

    private func data(_ text: String) throws -> GS1ElementString {
        try GS1ElementString.parse(elementData: Array(text.utf8), referenceYear: Self.year)
    }

    /// The refusal of `text` (any form), failing the test when it parses.
    private func refusal(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> GS1Error? {
        do throws(GS1Error) {
            let parsed = try parse(text)
            XCTFail("parsed as \(parsed.humanReadable)", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }

    private func assertRefused(_ text: String, _ code: GS1ErrorCode, ai: String?, _ message: String? = nil,
                               file: StaticString = #filePath, line: UInt = #line) {
        guard let error = refusal(text, file: file, line: line) else { return }
        XCTAssertEqual(error.code, code, error.message, file: file, line: line)
        XCTAssertEqual(error.ai, ai, error.message, file: file, line: line)
        if let message { XCTAssertEqual(error.message, message, file: file, line: line) }
    }

    // MARK: published examples

    /// GS1's own example GTIN (GS1 Digital Link standard) with an expiry and a lot, as a GS1-128
    /// carries it: (01) and (17) are predefined-length, so no separator is needed before (10).
    func testGS1ExampleWithExpiryAndLot() throws {
        let string = try data("0109506000134352" + "17201225" + "10ABC123")
        XCTAssertEqual(string.elements.map(\.ai), ["01", "17", "10"])
        XCTAssertEqual(string.elements.map(\.title), ["GTIN", "USE BY or EXPIRY", "BATCH/LOT"])
        XCTAssertEqual(string.humanReadable, "(01)09506000134352(17)201225(10)ABC123")
        XCTAssertEqual(string.gtin, "09506000134352")
        XCTAssertEqual(string.lot, "ABC123")
        XCTAssertEqual(string.expiry, GS1Date(year: 2020, month: 12, day: 25, dayGiven: true))
        XCTAssertEqual(string.expiry?.iso, "2020-12-25")
        XCTAssertNil(string.serial)
        XCTAssertNil(string.count)
    }

    /// The GS1-128 example of the GS1 General Specifications (and BWIPP's): a GTIN and a net
    /// weight of 0.123 kg, the AI's last digit placing the decimal point.
    func testGeneralSpecificationsNetWeightExample() throws {
        let string = try parse("(01)95012345678903(3103)000123")
        XCTAssertEqual(string.gtin, "95012345678903")
        let weight = try XCTUnwrap(string.element("3103"))
        XCTAssertEqual(weight.title, "NET WEIGHT (kg)")
        XCTAssertEqual(weight.decimalPlaces, 3)
        XCTAssertEqual(weight.decimal, "0.123")
        XCTAssertEqual(try data("0195012345678903" + "3103000123"), string)
    }

    /// The SSCC-18 and GTIN-14 examples (GS1 logistic label; BWIPP's sscc18 and ean14).
    func testSSCCAndGTIN14Examples() throws {
        XCTAssertEqual(try parse("(00)006141411234567890").sscc, "006141411234567890")
        XCTAssertEqual(try parse("(01)04601234567893").gtin, "04601234567893")
    }

    /// Day 00: "year and month only", read as the month's last day (GS1 GenSpecs 7.12), leap years
    /// included; only where the AI allows it.
    func testDayZeroIsTheLastDayOfTheMonth() throws {
        let composite = try parse("(01)03412345678900(17)010200")
        XCTAssertEqual(composite.expiry, GS1Date(year: 2001, month: 2, day: 28, dayGiven: false))
        XCTAssertEqual(try parse("(01)03412345678900(17)240200").expiry?.iso, "2024-02-29")
        XCTAssertEqual(try parse("(01)03412345678900(15)251100").bestBefore?.iso, "2025-11-30")
        XCTAssertEqual(try parse("(01)03412345678900(11)250100").element("11")?.date?.dayGiven, false)
        assertRefused("(01)03412345678900(7006)250200", .invalidDate, ai: "7006",
                      "(7006) FIRST FREEZE DATE: 250200 is not a date (YYMMDD): day 00 (month only) is not allowed for this AI")
    }

    /// GS1's sliding century window: 51-99 years ahead is the last century, 50 or more behind
    /// the next one.
    func testTwoDigitYearsFollowTheSlidingWindow() throws {
        func year(_ yymmdd: String, around reference: Int) throws -> Int? {
            try parse("(01)03412345678900(17)\(yymmdd)", year: reference).expiry?.year
        }
        XCTAssertEqual(try year("991231", around: 2025), 1999)
        XCTAssertEqual(try year("750101", around: 2025), 2075)
        XCTAssertEqual(try year("760101", around: 2025), 1976)
        XCTAssertEqual(try year("000101", around: 2025), 2000)
        XCTAssertEqual(try year("200101", around: 2080), 2120)
        XCTAssertEqual(try year("310101", around: 2080), 2031)
        XCTAssertEqual(try year("300101", around: 2080), 2130)
    }

    // MARK: forms and separators

    /// The same data as a GS1-128 carries it, with a scanner's symbology identifier, and in the
    /// human-readable form (spaces around the parentheses, as printed, ignored).
    func testEveryFormGivesTheSameElements() throws {
        let expected = "(01)09506000134352(10)ABC123(21)XYZ(17)201225"
        let raw = "0109506000134352" + "10ABC123" + Self.gs + "21XYZ" + Self.gs + "17201225"
        for text in [raw, "]C1" + raw, "]Q3" + raw, "]d2" + raw, expected, "(01) 09506000134352 (10) ABC123 (21) XYZ (17) 201225"] {
            XCTAssertEqual(try parse(text).humanReadable, expected, text)
        }
        XCTAssertEqual(try parse(raw).serial, "XYZ")
        XCTAssertEqual(try GS1ElementString.parse(humanReadable: expected, referenceYear: Self.year), try data(raw))
    }

    /// Encoders differ: a separator after a predefined-length element, a leading FNC1 passed
    /// on as GS, a trailing one; none changes the data.
    func testHarmlessSeparatorsAreAccepted() throws {
        let expected = "(01)09506000134352(10)ABC123"
        XCTAssertEqual(try data("0109506000134352" + Self.gs + "10ABC123").humanReadable, expected)
        XCTAssertEqual(try data(Self.gs + "0109506000134352" + "10ABC123").humanReadable, expected)
        XCTAssertEqual(try data("0109506000134352" + "10ABC123" + Self.gs).humanReadable, expected)
    }

    func testCountsAndContent() throws {
        XCTAssertEqual(try parse("(01)09506000134352(30)12").count, 12)
        let unit = try parse("(00)006141411234567890(02)09506000134352(37)20")
        XCTAssertEqual(unit.contentGTIN, "09506000134352")
        XCTAssertEqual(unit.count, 20)
        XCTAssertNil(unit.gtin)
        XCTAssertEqual(try parse("(01)09506000134352(400)PO-2026-00042(241)MAT-ST-4471").orderNumber, "PO-2026-00042")
    }

    /// Internal AIs (91-99) carry up to 90 characters of CSET 82, parentheses included; a
    /// multi-component AI (421: country then postal code) is split and checked per component.
    func testInternalAndComponentAIs() throws {
        let long = String(repeating: "x", count: 90)
        XCTAssertEqual(try data("91" + long).value("91"), long)
        XCTAssertEqual(try data("92a(b)c!").value("92"), "a(b)c!")
        XCTAssertEqual(try parse("(421)276D-10115").value("421"), "276D-10115")
        assertRefused("(421)2X6D-10115", .invalidCharacter, ai: "421")
        XCTAssertEqual(try parse("(8006)095060001343520102").value("8006"), "095060001343520102")
        assertRefused("(8006)095060001343520302", .invalidValue, ai: "8006")
        XCTAssertEqual(try parse("(4331)001234-").value("4331"), "001234-")
        assertRefused("(4331)001234+", .invalidValue, ai: "4331")
        XCTAssertEqual(try data("7003" + "2012251230" + Self.gs + "10A").element("7003")?.date?.iso, "2020-12-25")
    }

    // MARK: refusals

    func testBadCheckDigitsAreRefused() {
        assertRefused("(01)09506000134353", .badCheckDigit, ai: "01", "(01) GTIN: check digit is 3, expected 2")
        assertRefused("(00)006141411234567891", .badCheckDigit, ai: "00", "(00) SSCC: check digit is 1, expected 0")
        assertRefused("(02)09506000134350(37)5", .badCheckDigit, ai: "02")
        assertRefused("(414)4012345000008", .badCheckDigit, ai: "414")
        XCTAssertEqual(try? parse("(414)4012345000009").value("414"), "4012345000009")
    }

    func testBadDatesAreRefused() {
        assertRefused("(01)09506000134352(17)201332", .invalidDate, ai: "17",
                      "(17) USE BY or EXPIRY: 201332 is not a date (YYMMDD): month 13 does not exist")
        assertRefused("(01)09506000134352(17)210229", .invalidDate, ai: "17",
                      "(17) USE BY or EXPIRY: 210229 is not a date (YYMMDD): February 2021 has 28 days, not 29")
        assertRefused("(01)09506000134352(17)200431", .invalidDate, ai: "17")
        assertRefused("(01)09506000134352(17)200001", .invalidDate, ai: "17")
        assertRefused("(01)09506000134352(7003)2012252460", .invalidDate, ai: "7003",
                      "(7003) EXPIRY TIME: 2460 is not a time of day (HHMM)")
    }

    func testUnknownAndMalformedAIsAreRefused() {
        assertRefused("2312345", .unknownAI, ai: "23",
                      "unknown application identifier at position 1: no GS1 AI matches the digits \"2312\"")
        assertRefused("(01)09506000134352(23)12345", .unknownAI, ai: "23")
        assertRefused("0109506000134352" + "0412345", .unknownAI, ai: "04")
        assertRefused("A1", .malformedAI, ai: nil)
        assertRefused("0109506000134352" + Self.gs + Self.gs + "10A", .malformedAI, ai: nil,
                      "expected an application identifier (2-4 digits) at position 18; found a separator")
        assertRefused("(1)23", .malformedText, ai: nil)
        assertRefused("(01", .malformedText, ai: nil)
    }

    func testWrongLengthsAreRefused() {
        assertRefused("01095060001343", .valueTooShort, ai: "01", "(01) GTIN: the value has 12 characters; it must have 14")
        assertRefused("1720122" + Self.gs + "10A", .valueTooShort, ai: "17")
        assertRefused("10" + Self.gs + "17201225", .valueTooShort, ai: "10", "(10) BATCH/LOT: the value is empty; it needs at least 1")
        assertRefused("(10)" + String(repeating: "A", count: 21), .valueTooLong, ai: "10",
                      "(10) BATCH/LOT: the value is 21 characters long; at most 20 are allowed")
        assertRefused("(01)0950600013435(17)201225", .valueTooShort, ai: "01")
    }

    /// A separator missing after a variable-length AI joins the next element to it: caught when
    /// that makes the value too long (a short one is indistinguishable from a longer lot). After
    /// a fixed-length AI outside the predefined-length table, GS1 requires it.
    func testMissingSeparatorsAreRefused() {
        assertRefused("0109506000134352" + "10ABCDEFGHIJKLMNOP" + "21XYZ1234", .valueTooLong, ai: "10",
                      "(10) BATCH/LOT: the value is 25 characters long; at most 20 are allowed (is a separator missing after it?)")
        assertRefused("0109506000134352" + "7003" + "2012251230" + "10ABC", .missingSeparator, ai: "7003",
                      "(7003) EXPIRY TIME: a separator (FNC1) must follow its 10-character value; found more data instead")
    }

    func testCharactersOutsideTheAIsSetAreRefused() {
        assertRefused("0109506000134352" + "10AB C", .invalidCharacter, ai: "10",
                      "(10) BATCH/LOT: \" \" at position 3 of the value is not allowed (GS1 character set 82)")
        assertRefused("0109506000134352" + "10AB\u{0}", .invalidCharacter, ai: "10",
                      "(10) BATCH/LOT: \"\\u{0000}\" at position 3 of the value is not allowed (GS1 character set 82)")
        assertRefused("0109506000134352" + "10ABé", .invalidCharacter, ai: "10",
                      "(10) BATCH/LOT: \"\\u{00E9}\" at position 3 of the value is not allowed (GS1 character set 82)")
        assertRefused("0109506000134352" + "10AB#", .invalidCharacter, ai: "10")
        assertRefused("(01)09506000134352(30)12A", .invalidCharacter, ai: "30",
                      "(30) VAR. COUNT: \"A\" at position 3 of the value is not allowed (digits only)")
        assertRefused("(01)0950600013435A", .invalidCharacter, ai: "01")
        assertRefused("(8010)ab", .invalidCharacter, ai: "8010")
    }

    func testConflictingAIsAreRefused() {
        assertRefused("(01)09506000134352(02)09506000134352", .conflictingAI, ai: "02",
                      "(01) GTIN and (02) CONTENT may not be in one GS1 element string")
        assertRefused("(01)09506000134352(37)5", .conflictingAI, ai: "37")
        assertRefused("(01)09506000134352(3102)001500(3103)001500", .conflictingAI, ai: "3103")
        assertRefused("(01)09506000134352(10)A(10)B", .conflictingAI, ai: "10",
                      "(10) BATCH/LOT: it appears twice with different values (\"A\" and \"B\")")
        // The same element twice is the same data, not a conflict.
        XCTAssertEqual(try? parse("(01)09506000134352(10)A(10)A").lot, "A")
    }

    func testEmptyDataIsRefused() {
        for text in ["", "]C1", Self.gs] { assertRefused(text, .empty, ai: nil) }
        XCTAssertEqual(refusal("   ")?.code, .malformedAI)
    }

    // MARK: hostile input

    func testInputOverTheLimitIsNotParsed() {
        let long = "91" + String(repeating: "A", count: GS1ElementString.maxBytes)
        assertRefused(long, .tooLong, ai: nil, "the GS1 element string is 514 bytes long; at most 512 are read")
        assertRefused("(91)" + String(repeating: "A", count: GS1ElementString.maxBytes), .tooLong, ai: nil)
        XCTAssertNoThrow(try data("91" + String(repeating: "A", count: 90)))
    }

    /// Many tiny elements (VARIANT is 2 digits, predefined-length) stop at the element limit.
    func testElementCountIsBounded() throws {
        let many = String(repeating: "2012", count: GS1ElementString.maxElements + 1)
        XCTAssertLessThanOrEqual(many.utf8.count, GS1ElementString.maxBytes)
        assertRefused(many, .tooLong, ai: nil, "the GS1 element string holds more than 64 elements")
        assertRefused(String(repeating: "(20)12", count: GS1ElementString.maxElements + 1), .tooLong, ai: nil)
        XCTAssertEqual(try data(String(repeating: "2012", count: GS1ElementString.maxElements)).elements.count, GS1ElementString.maxElements)
    }

    /// Every byte value in every position of a short element string ends in a value or a typed
    /// error (no trap), and a long value of separators costs one error.
    func testEveryByteEndsInAValueOrAnError() {
        let base = Array(("0109506000134352" + "17201225" + "10ABC123").utf8)
        for position in base.indices {
            for byte in UInt8.min...UInt8.max {
                var bytes = base
                bytes[position] = byte
                _ = try? GS1ElementString.parse(elementData: bytes, referenceYear: Self.year)
                _ = try? GS1ElementString.parse(String(decoding: bytes, as: UTF8.self), referenceYear: Self.year)
            }
        }
        XCTAssertEqual(refusal(String(repeating: Self.gs, count: 400))?.code, .malformedAI)
    }

    // MARK: the AI table

    /// The table's shape the parser relies on: 2-4 digit AIs, none a prefix of another, only a
    /// last component variable or optional, predefined-length AIs exactly GS1's list.
    func testAITableIsWellFormed() {
        let ais = GS1AITable.all.map(\.ai)
        XCTAssertEqual(Set(ais).count, ais.count, "duplicate AIs")
        for ai in ais {
            XCTAssertTrue((2...4).contains(ai.count) && ai.allSatisfy(\.isNumber), ai)
            for other in ais where other != ai { XCTAssertFalse(other.hasPrefix(ai), "\(ai) is a prefix of \(other)") }
        }
        for definition in GS1AITable.all {
            for component in definition.components.dropLast() {
                XCTAssertTrue(component.isFixed, "\(definition.ai): only the last component may vary")
            }
            if definition.predefinedLength {
                XCTAssertTrue(definition.isFixedLength, "\(definition.ai) is predefined-length but varies")
                // GS1 GenSpecs figure 7.8.5-2: the predefined-length AIs start with these two digits.
                let predefinedPrefixes = ["00", "01", "02", "03", "04", "11", "12", "13", "14", "15", "16", "17", "18", "19", "20",
                                          "31", "32", "33", "34", "35", "36", "41"]
                XCTAssertTrue(predefinedPrefixes.contains(String(definition.ai.prefix(2))), definition.ai)
            }
            XCTAssertFalse(definition.title.isEmpty)
        }
        XCTAssertGreaterThan(ais.count, 400)
    }

    /// The parser's check digit agrees with the EAN-13 one for every GTIN-13 position.
    func testCheckDigitMatchesEAN13s() {
        for gtin in ["4006381333931", "9781234567897", "0036000291452", "5901234123457"] {
            let digits = gtin.map { Int(String($0)) ?? -1 }
            XCTAssertEqual(GS1Parser.checkDigit(digits.dropLast()[...]), digits.last, gtin)
            XCTAssertEqual(GS1Parser.checkDigit(([0] + digits.dropLast())[...]), digits.last, "0" + gtin)
        }
    }

    func testCurrentYearIsTheCalendarYear() {
        XCTAssertEqual(GS1Date.currentYear(now: Date(timeIntervalSince1970: 0)), 1970)
        XCTAssertEqual(GS1Date.currentYear(now: Date(timeIntervalSince1970: 1_767_225_599)), 2025)  // 2025-12-31 23:59:59 UTC
        XCTAssertEqual(GS1Date.currentYear(now: Date(timeIntervalSince1970: 1_767_225_600)), 2026)
        XCTAssertEqual(GS1Date.currentYear(now: Date(timeIntervalSince1970: 951_782_400)), 2000)   // 2000-02-29
    }
}
