import XCTest
@testable import EdgePayloads

final class SymbologyTests: XCTestCase {
    func testRawValuesMatchScannerFormats() {
        XCTAssertEqual(Symbology.allCases.map(\.rawValue), ["qr", "code128", "code39", "ean13", "code32"])
    }

    func testDisplayNamesWithArticles() {
        XCTAssertEqual(Symbology.qr.withArticle, "a QR code")
        XCTAssertEqual(Symbology.ean13.withArticle, "an EAN-13 barcode")
        XCTAssertEqual(Symbology.code39.displayName, "Code 39 barcode")
    }

    func testBuiltInClassNames() {
        XCTAssertEqual(BuiltInPayloadClass.allCases.map(\.rawValue),
                       ["linking-code", "purchase-order", "vendor", "material", "product", "gs1", "unknown"])
    }
}
