import XCTest
@testable import EdgePayloads

/// SCN-13 in the classifier: which payloads are read as GS1, and the classes they get (a GTIN
/// makes a `product` carrying the GS1 data, else `gs1`; an invalid string keeps its class and
/// gets the parser's reason).
final class GS1RecognizerTests: XCTestCase {
    private var classifier: PayloadClassifier!
    private static let gs = "\u{1D}"
    /// (01)09506000134352(10)ABC123(17)201225 as a GS1-128 carries it.
    private static let element = "0109506000134352" + "10ABC123" + gs + "17201225"

    override func setUpWithError() throws {
        classifier = try Fixtures.classifier
        classifier.gs1ReferenceYear = 2025
    }

    private func marked(_ text: String, _ symbology: Symbology = .code128) -> Classification {
        classifier.classify(text: text, symbology: symbology, gs1: true)
    }

    func testAMarkedGTINIsTheProductItNames() throws {
        for symbology in [Symbology.code128, .qr] {
            let result = marked(Self.element, symbology)
            assertClass(result, "product", valid: true)
            XCTAssertEqual(result.details, ["gtin": "9506000134352", "kind": "gtin", "lot": "ABC123", "expiry": "2020-12-25"])
            let gs1 = try XCTUnwrap(result.gs1)
            XCTAssertEqual(gs1.humanReadable, "(01)09506000134352(10)ABC123(17)201225")
            XCTAssertEqual(gs1.lot, "ABC123")
        }
        // The same GTIN as its EAN-13 names the same product.
        XCTAssertEqual(classifier.classify(text: "9506000134352", symbology: .ean13).details["gtin"], "9506000134352")
        XCTAssertEqual(marked("0109506000134352").details["gtin"], "9506000134352")
    }

    func testKindsOfGTIN() {
        XCTAssertEqual(marked("0109781234567897").details["kind"], "isbn")
        XCTAssertEqual(marked("0102012345678903").details["kind"], "in-store")
        let caseLevel = marked("0119506000134359")
        XCTAssertEqual(caseLevel.details["gtin"], "19506000134359")
        XCTAssertEqual(caseLevel.details["kind"], "gtin-14")
    }

    /// A logistic unit's (02) and (37): the items it holds, and how many.
    func testContentAndCountOfALogisticUnit() {
        let result = marked("00006141411234567890" + "0209506000134352" + "3720")
        assertClass(result, "product", valid: true)
        XCTAssertEqual(result.details["gtin"], "9506000134352")
        XCTAssertEqual(result.details["count"], "20")
        XCTAssertEqual(result.details["sscc"], "006141411234567890")
        XCTAssertEqual(marked("0109506000134352" + "3012").details["count"], "12")
    }

    /// No GTIN: a valid `gs1`, with the data receiving uses as details.
    func testWithoutAGTINItIsGS1() {
        let pallet = marked("00006141411234567890" + "400PO-2026-00042")
        assertClass(pallet, "gs1", valid: true)
        XCTAssertEqual(pallet.details, ["sscc": "006141411234567890", "order_number": "PO-2026-00042"])
        XCTAssertEqual(pallet.gs1?.humanReadable, "(00)006141411234567890(400)PO-2026-00042")
    }

    /// Refused with the parser's reason, as what it was trying to be; no GS1 value or data
    /// details a consumer could take for checked data.
    func testInvalidGS1KeepsItsClassAndSaysWhy() {
        let badGTIN = marked("0109506000134353" + "10ABC")
        assertClass(badGTIN, "product", valid: false, reason: "(01) GTIN: check digit is 3, expected 2")
        XCTAssertEqual(badGTIN.details, ["ai": "01"])
        XCTAssertNil(badGTIN.gs1)
        assertClass(marked("0109506000134352" + "17201332"), "product", valid: false,
                    reason: "(17) USE BY or EXPIRY: 201332 is not a date (YYMMDD): month 13 does not exist")
        assertClass(marked("00006141411234567891"), "gs1", valid: false, reason: "(00) SSCC: check digit is 1, expected 0")
        assertClass(marked("2312345"), "gs1", valid: false)
        assertClass(marked(""), "gs1", valid: false, reason: "the GS1 element string holds no data")
    }

    /// Control characters in GS1 data are refused by the parser, escaped in the reason: the GS
    /// separator is the only one allowed, and only between elements.
    func testHostileCharactersInMarkedDataAreRefusedEscaped() {
        let result = marked("0109506000134352" + "10AB\u{202E}C")
        assertClass(result, "product", valid: false,
                    reason: "(10) BATCH/LOT: \"\\u{202E}\" at position 3 of the value is not allowed (GS1 character set 82)")
        XCTAssertFalse(result.reason?.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x202E } ?? true)
        assertClass(marked(String(repeating: "9", count: 5000)), "unknown", valid: false)
        // Not UTF-8 at all: refused before any GS1 reading.
        assertClass(classifier.classify(bytes: Array(Self.element.utf8) + [0xFF], symbology: .qr, gs1: true), "unknown", valid: false)
    }

    /// Typed or wedge input announces GS1 itself: a symbology identifier or the human-readable
    /// form; bare digits on a Code 128 that is not marked GS1 are just a number.
    func testTextThatAnnouncesGS1() {
        for text in ["]C1" + Self.element, "(01)09506000134352(10)ABC123(17)201225", " (01)09506000134352 (10)ABC123 (17)201225\r\n"] {
            let result = classifier.classify(text: text, symbology: .code128)
            assertClass(result, "product", valid: true)
            XCTAssertEqual(result.gs1?.humanReadable, "(01)09506000134352(10)ABC123(17)201225", text)
        }
        assertClass(classifier.classify(text: "(01)09506000134353", symbology: .qr), "product", valid: false)
        assertClass(classifier.classify(text: "01095060001343521720122510ABC123", symbology: .code128), "unknown", valid: true)
        // Unmarked text with a GS stays tainted, as before.
        assertClass(classifier.classify(text: Self.element, symbology: .code128), "unknown", valid: false)
        // "(" without an AI after it is no GS1 candidate.
        assertClass(classifier.classify(text: "(hello)", symbology: .code128), "unknown", valid: true)
    }

    /// EAN-13 is never GS1 element data: its 13 digits are the GTIN itself.
    func testEAN13IsNeverReadAsGS1() {
        assertClass(classifier.classify(text: "(01)09506000134352", symbology: .ean13, gs1: true), "product", valid: false)
        XCTAssertNil(classifier.classify(text: "9506000134352", symbology: .ean13, gs1: true).gs1)
    }

    /// GS1 comes before the PO, material and linking-code checks only for GS1 payloads: those
    /// keep their classes.
    func testOtherClassesAreUnchanged() {
        assertClass(classifier.classify(text: "PO-2026-00042", symbology: .code128), "purchase-order", valid: true)
        assertClass(classifier.classify(text: "MAT-ST-4471", symbology: .code128), "material", valid: true)
        assertClass(classifier.classify(text: "AB-CDE-FGHJK", symbology: .qr), "linking-code", valid: true)
    }

    /// `classifyGS1`: the dock's product lookup of a stored camera read (element data, the GS1
    /// mark gone) or typed text, in any form.
    func testClassifyGS1ReadsEveryForm() {
        for text in [Self.element, "]Q3" + Self.element, "(01)09506000134352(10)ABC123(17)201225"] {
            XCTAssertEqual(classifier.classifyGS1(text: text).details["gtin"], "9506000134352", text)
        }
        assertClass(classifier.classifyGS1(text: "PO-2026-00042"), "gs1", valid: false)
    }

    func testReferenceYearDecidesTheCentury() {
        classifier.gs1ReferenceYear = 2025
        XCTAssertEqual(marked("0109506000134352" + "17991231").details["expiry"], "1999-12-31")
        classifier.gs1ReferenceYear = 2060
        XCTAssertEqual(marked("0109506000134352" + "17991231").details["expiry"], "2099-12-31")
        // nil: the current year, whatever it is, reads next year's expiry in this century.
        classifier.gs1ReferenceYear = nil
        let next = GS1Date.currentYear() + 1
        let yy = next % 100 < 10 ? "0\(next % 100)" : String(next % 100)
        XCTAssertEqual(marked("0109506000134352" + "17\(yy)0101").details["expiry"], "\(next)-01-01")
    }

    func testGS1IsABuiltInClassName() {
        XCTAssertEqual(BuiltInPayloadClass(rawValue: "gs1"), .gs1)
        XCTAssertThrowsError(try PayloadClassRule(name: "gs1", pattern: "^x$", symbologies: [.code128]))
    }
}
