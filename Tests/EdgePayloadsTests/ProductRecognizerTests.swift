import XCTest
@testable import EdgePayloads

final class ProductRecognizerTests: XCTestCase {
    private var classifier: PayloadClassifier!

    override func setUpWithError() throws {
        classifier = try Fixtures.classifier
    }

    private func ean(_ text: String) -> Classification { classifier.classify(text: text, symbology: .ean13) }

    func testKinds() {
        XCTAssertEqual(ean("4006381333931"),
                       Classification(className: "product", valid: true, reason: nil, details: ["gtin": "4006381333931", "kind": "gtin"]))
        XCTAssertEqual(ean("9781234567897").details["kind"], "isbn")
        XCTAssertEqual(ean("9791234567896").details["kind"], "isbn")
        XCTAssertEqual(ean("2012345678903").details["kind"], "in-store")
        XCTAssertEqual(ean("2912345678906").details["kind"], "in-store")
        XCTAssertEqual(ean("0036000291452").details["kind"], "gtin")
    }

    func testBadCheckDigit() {
        assertClass(ean("4006381333932"), "product", valid: false, reason: "check digit is 2, expected 1")
        assertClass(ean("9781234567890"), "product", valid: false, reason: "check digit is 0, expected 7")
    }

    func testWrongShapes() {
        assertClass(ean("400638133393"), "product", valid: false, reason: "an EAN-13 code has 13 digits, this one has 12")
        assertClass(ean(""), "product", valid: false, reason: "an EAN-13 code has 13 digits, this one has 0")
        assertClass(ean("9781234567897 12345"), "product", valid: false,
                    reason: "an EAN-13 code has 13 digits only; add-on digits are reported separately")
        assertClass(ean("978123456789712"), "product", valid: false,
                    reason: "an EAN-13 code has 13 digits, this one has 15; add-on digits are reported separately")
        assertClass(ean("97812345678A7"), "product", valid: false,
                    reason: "an EAN-13 code holds only digits; found \"A\" at position 12")
        assertClass(ean("PO-2024-00001"), "product", valid: false)
    }

    func testThirteenDigitsOnOtherSymbologiesAreNotProducts() {
        assertClass(classifier.classify(text: "4006381333931", symbology: .code128), "unknown", valid: true)
        assertClass(classifier.classify(text: "4006381333931", symbology: .qr), "unknown", valid: true)
    }

    func testCheckDigitFunction() {
        XCTAssertEqual(ProductRecognizer.checkDigit([4, 0, 0, 6, 3, 8, 1, 3, 3, 3, 9, 3]), 1)
        XCTAssertEqual(ProductRecognizer.checkDigit([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), 0)
    }
}
