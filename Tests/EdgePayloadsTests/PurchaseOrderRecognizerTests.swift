import XCTest
@testable import EdgePayloads

final class PurchaseOrderRecognizerTests: XCTestCase {
    private var classifier: PayloadClassifier!

    override func setUpWithError() throws {
        classifier = try Fixtures.classifier
    }

    private func c128(_ text: String) -> Classification { classifier.classify(text: text, symbology: .code128) }

    func testValidOnCode128AndCode39() {
        XCTAssertEqual(c128("PO-2024-00001"),
                       Classification(className: "purchase-order", valid: true, reason: nil, details: ["year": "2024", "number": "00001"]))
        assertClass(classifier.classify(text: "PO-2099-99999", symbology: .code39), "purchase-order", valid: true)
        assertClass(c128("PO-2000-12345"), "purchase-order", valid: true)
    }

    func testMalformedMembers() {
        assertClass(c128("PO-24-001"), "purchase-order", valid: false, reason: "the year \"24\" must be 4 digits (PO-YYYY-NNNNN)")
        assertClass(c128("PO-2024-ABCDE"), "purchase-order", valid: false,
                    reason: "the order number \"ABCDE\" must be 5 digits (PO-YYYY-NNNNN)")
        assertClass(c128("PO-2024-001"), "purchase-order", valid: false,
                    reason: "the order number \"001\" must be 5 digits (PO-YYYY-NNNNN)")
        assertClass(c128("PO-1999-00001"), "purchase-order", valid: false, reason: "the year 1999 is outside 2000-2099")
        assertClass(c128("PO-2100-00001"), "purchase-order", valid: false, reason: "the year 2100 is outside 2000-2099")
        assertClass(c128("PO-2024-00000"), "purchase-order", valid: false,
                    reason: "the order number 00000 is not used; numbers start at 00001")
        assertClass(c128("po-2024-00001"), "purchase-order", valid: false,
                    reason: "purchase-order numbers are upper case, like PO-2024-00001")
        assertClass(c128("PO 2024 00001"), "purchase-order", valid: false,
                    reason: "expected PO-YYYY-NNNNN, like PO-2024-00001; got \"PO 2024 00001\"")
        assertClass(c128("PO2024-00001"), "purchase-order", valid: false)
        assertClass(c128("PO-2024-00001-7"), "purchase-order", valid: false)
        assertClass(c128("PO_2024_00001"), "purchase-order", valid: false)
    }

    func testOnQROrEAN() {
        assertClass(classifier.classify(text: "PO-2024-00001", symbology: .qr), "purchase-order", valid: false,
                    reason: "purchase-order labels are printed as Code 128 or Code 39; this is a QR code")
    }

    func testNotCandidates() {
        for text in ["POTATO", "PO", "POLICY-1", "P0-2024-00001"] {
            XCTAssertNotEqual(c128(text).className, "purchase-order", text)
        }
    }
}
