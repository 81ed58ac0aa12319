import XCTest
@testable import EdgePayloads

final class LinkingCodeRecognizerTests: XCTestCase {
    private var classifier: PayloadClassifier!

    override func setUpWithError() throws {
        classifier = try Fixtures.classifier
    }

    private func qr(_ text: String) -> Classification { classifier.classify(text: text, symbology: .qr) }

    private let lookAlike = LinkingCodeError.lookAlikeMessage
    private let unknownPrefix = LinkingCodeError.unknownPrefixMessage

    // MARK: carriers

    func testBareFormattedAndUnformatted() {
        let expected = ["formatted": "AB-CDE-FGHJK", "prefix": "AB", "sponsor_id": "sponsor-a", "carrier": "bare"]
        XCTAssertEqual(qr("AB-CDE-FGHJK"), Classification(className: "linking-code", valid: true, reason: nil, details: expected))
        XCTAssertEqual(qr("ABCDEFGHJK").details, expected)
        XCTAssertEqual(qr("ab-cde-fghjk").details, expected)
        XCTAssertEqual(qr("AB CDE FGHJK").details, expected)
        XCTAssertEqual(classifier.classify(text: "ABCDEFGHJK", symbology: .code128).details, expected)
    }

    func testURLQuery() {
        let result = qr("https://link.portal.example/enroll?code=AB-CDE-FGHJK&lang=en")
        assertClass(result, "linking-code", valid: true)
        XCTAssertEqual(result.details["carrier"], "url-query")
        XCTAssertEqual(result.details["formatted"], "AB-CDE-FGHJK")
        XCTAssertEqual(qr("https://x.example/?code=abcdefghjk").details["formatted"], "AB-CDE-FGHJK")
    }

    func testURLQueryMalformedIsStillALinkingCode() {
        assertClass(qr("https://x.example/enroll?code=AB-CDE-FGH"), "linking-code", valid: false, reason: "8/10 characters")
        assertClass(qr("https://x.example/enroll?code=AB-CDE-FGH10"), "linking-code", valid: false, reason: lookAlike)
        assertClass(qr("https://x.example/enroll?code=XY-CDE-FGHJK"), "linking-code", valid: false, reason: unknownPrefix)
        assertClass(qr("https://x.example/enroll?code="), "linking-code", valid: false, reason: "0/10 characters")
        assertClass(qr("https://x.example/enroll?code"), "linking-code", valid: false, reason: "0/10 characters")
        assertClass(qr("https://x.example/?code=AB-CDE-FGHJK&code=AB-CDE-FGHJM"), "linking-code", valid: false,
                    reason: "the link carries more than one code")
    }

    func testURLQueryWithEncodedNULIsRefused() {
        let result = qr("https://x.example/?code=AB-CDE-FGHJK%00")
        assertClass(result, "linking-code", valid: false, reason: "the linking code contains the control character U+0000")
    }

    func testURLPath() {
        let result = qr("https://link.portal.example/enroll/AB-CDE-FGHJK")
        assertClass(result, "linking-code", valid: true)
        XCTAssertEqual(result.details["carrier"], "url-path")
        XCTAssertEqual(qr("https://link.portal.example/e/ABCDEFGHJK/").details["formatted"], "AB-CDE-FGHJK")
        assertClass(qr("https://link.portal.example/e/XY-CDE-FGHJK"), "linking-code", valid: false, reason: unknownPrefix)
        assertClass(qr("edgeapp://link/AB-CDE-FGHJK"), "linking-code", valid: true)
    }

    func testURLsWithoutACodeAreUnknown() {
        assertClass(qr("https://www.example.com/index.html"), "unknown", valid: true)
        assertClass(qr("https://shop.example/dp/B07XYZ1234"), "unknown", valid: true)
        assertClass(qr("https://example.com/a/1234567890"), "unknown", valid: true)
    }

    func testJSON() {
        let result = qr(#"{"type":"LINK","code":"AB-CDE-FGHJK"}"#)
        assertClass(result, "linking-code", valid: true)
        XCTAssertEqual(result.details["carrier"], "json")
        XCTAssertEqual(qr(#"{ "type": "LINK", "code": "abcdefghjk", "v": 1 }"#).details["formatted"], "AB-CDE-FGHJK")
    }

    func testJSONMalformedIsStillALinkingCode() {
        assertClass(qr(#"{"type":"LINK","code":"AB-CDE"}"#), "linking-code", valid: false, reason: "5/10 characters")
        assertClass(qr(#"{"type":"LINK"}"#), "linking-code", valid: false, reason: "the linking-code JSON has no \"code\"")
        assertClass(qr(#"{"type":"LINK","code":42}"#), "linking-code", valid: false, reason: "\"code\" must be a string, found a number")
        assertClass(qr(#"{"type":"link","code":"AB-CDE-FGHJK"}"#), "linking-code", valid: false,
                    reason: "\"type\" must be exactly \"LINK\", found \"link\"")
        assertClass(qr(#"{"code":"AB-CDE-FGHJK"}"#), "linking-code", valid: false,
                    reason: "the linking-code JSON has no \"type\": \"LINK\"")
        assertClass(qr(#"{"type":"LINK","code":"AB-CDE-FGHJK","extra":{"a":1}}"#), "linking-code", valid: false,
                    reason: "unexpected nested value (an object) under \"extra\"")
        // The JSON parser refuses a NUL in any string (issue #16), before the code is looked at.
        let nul = qr(#"{"type":"LINK","code":"AB-CDE-FGHJK\u0000"}"#)
        assertClass(nul, "linking-code", valid: false)
        assertReason(nul, contains: "control character U+0000")
        assertClass(qr(#"{"type":"LINK","code":"AB-CDE-FGHJK""#), "linking-code", valid: false)
        assertClass(qr(#"{"wrapper":{"type":"LINK","code":"AB-CDE-FGHJK"}}"#), "linking-code", valid: false)
        assertReason(qr(#"[{"type":"LINK","code":"AB-CDE-FGHJK"}]"#), contains: "flat object at the top level")
    }

    func testTypelessJSONWithUnrelatedCodeIsNotALinkingCode() {
        assertClass(qr(#"{"code":"404"}"#), "unknown", valid: true)
    }

    // MARK: ENR-3 through the classifier

    func testAllThreeMessagesFromBareCodes() {
        assertClass(qr("AB-CDE-FGH10"), "linking-code", valid: false, reason: lookAlike)
        assertClass(qr("AB-CDE-FGHJ"), "linking-code", valid: false, reason: "9/10 characters")
        assertClass(qr("AB-CDE-FGHJKL"), "linking-code", valid: false, reason: "11/10 characters")
        assertClass(qr("XY-CDE-FGHJK"), "linking-code", valid: false, reason: unknownPrefix)
        assertClass(qr("XYCDEFGHJK"), "linking-code", valid: false, reason: unknownPrefix)
    }

    func testSymbologyRules() {
        let expected = "linking codes are printed as QR or Code 128 codes; this is a Code 39 barcode"
        assertClass(classifier.classify(text: "AB-CDE-FGHJK", symbology: .code39), "linking-code", valid: false, reason: expected)
        assertClass(classifier.classify(text: "https://x.example/?code=AB-CDE-FGHJK", symbology: .code39),
                    "linking-code", valid: false, reason: expected)
        // The weak undashed form does not count on Code 39: it is just a 10-character ID there.
        assertClass(classifier.classify(text: "ABCDEFGHJK", symbology: .code39), "unknown", valid: true)
    }

    // MARK: candidates: unrelated text must not be misreported

    func testPurchaseOrdersAndMaterialsAreNeverLinkingCodes() {
        XCTAssertEqual(classifier.classify(text: "PO-2024-00001", symbology: .code128).className, "purchase-order")
        XCTAssertEqual(classifier.classify(text: "PO-ABC-DEFGH", symbology: .code128).className, "purchase-order")
        XCTAssertEqual(qr("PO-2024-00001").className, "purchase-order")
        XCTAssertEqual(classifier.classify(text: "MAT-AB-CDE", symbology: .code128).className, "material")
        XCTAssertEqual(classifier.classify(text: "MAT-ABCDEF", symbology: .code128).className, "material")
    }

    func testUnrelatedTenCharacterTextStaysUnknown() {
        for text in ["1234567890", "ORDER12345", "HELLOWORLD", "12-345-67890", "B07XYZ1234", "xycdefghjk",
                     "hello world", "AB-CDE-FGHJK-LMN", "ABCDEFGHJ", "ABCDEFGHJKL"] {
            assertClass(qr(text), "unknown", valid: true)
            assertClass(classifier.classify(text: text, symbology: .code128), "unknown", valid: true)
        }
    }

    func testKnownPrefixMakesWeakShapesCandidates() {
        // "34" is a sponsor prefix in the fixture: a numeric code with it is a linking code,
        // and a look-alike in it is a misprinted code.
        assertClass(qr("3467894678"), "linking-code", valid: true)
        assertClass(qr("3467894670"), "linking-code", valid: false, reason: lookAlike)
        assertClass(qr("AB12345678"), "linking-code", valid: false, reason: lookAlike)
        assertClass(qr("34-678-94678"), "linking-code", valid: true)
    }
}
