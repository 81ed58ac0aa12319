import XCTest
@testable import EdgePayloads

final class MaterialRecognizerTests: XCTestCase {
    private var classifier: PayloadClassifier!

    override func setUpWithError() throws {
        classifier = try Fixtures.classifier
    }

    private func c39(_ text: String) -> Classification { classifier.classify(text: text, symbology: .code39) }

    func testValid() {
        XCTAssertEqual(c39("MAT-STEEL-42"),
                       Classification(className: "material", valid: true, reason: nil, details: ["material_code": "STEEL-42"]))
        assertClass(classifier.classify(text: "MAT-100.200/3_A", symbology: .code128), "material", valid: true)
        assertClass(c39("MAT-" + String(repeating: "A", count: 32)), "material", valid: true)
    }

    func testMalformedMembers() {
        assertClass(c39("MAT-"), "material", valid: false, reason: "the material code after MAT- is missing")
        assertClass(c39("MAT-" + String(repeating: "A", count: 33)), "material", valid: false,
                    reason: "the material code is 33 characters long; at most 32 are allowed")
        assertClass(c39("MAT-steel"), "material", valid: false,
                    reason: "the material code contains \"s\" at position 1; material codes are upper case")
        assertClass(c39("MAT-ST EEL"), "material", valid: false,
                    reason: "the material code contains \" \" at position 3; use A-Z, 0-9, - . _ /")
        assertClass(c39("MAT--X"), "material", valid: false, reason: "the material code must start with a letter or digit")
        assertClass(c39("MAT STEEL"), "material", valid: false,
                    reason: "expected MAT- followed by the material code; got \"MAT STEEL\"")
        assertClass(c39("mat-STEEL"), "material", valid: false)
        assertClass(c39("MAT_STEEL"), "material", valid: false)
    }

    func testOnQR() {
        assertClass(classifier.classify(text: "MAT-STEEL", symbology: .qr), "material", valid: false,
                    reason: "material labels are printed as Code 128 or Code 39; this is a QR code")
    }

    func testNotCandidates() {
        for text in ["MATERIAL", "MAT", "MATTRESS-1"] {
            XCTAssertEqual(c39(text).className, "unknown", text)
        }
    }
}
