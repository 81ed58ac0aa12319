import EdgeImaging
@testable import EdgeScanning
import XCTest

final class ScanLinesTests: XCTestCase {
    func testUprightBarsAreScannedAlongRowsAndLyingBarsAlongColumns() throws {
        let ean = try Encoders.zint(["-b", "13", "--scale=2", "--quietzones", "-d", "400638133393"])
        XCTAssertEqual(ean.withView { ScanLines.acrossBars(in: $0) }, .rows)
        let lying = try ean.withView { try $0.rotated(degrees: 90) }.image
        XCTAssertEqual(lying.withView { ScanLines.acrossBars(in: $0) }, .columns)
    }

    func testQRCodesTiltedBarsAndFlatImagesKeepBothDirections() throws {
        let qr = try XCTUnwrap(Encoders.qrencode(["-s", "4"], "AB-7KX-M4PQR").first)
        XCTAssertEqual(qr.withView { ScanLines.acrossBars(in: $0) }, .both)
        let code128 = try Encoders.zint(["-b", "20", "--scale=2", "--quietzones", "-d", "PO-2026-00042"])
        let tilted = try code128.withView { try $0.padded(by: 40) }.withView { try $0.rotated(degrees: 45) }.image
        XCTAssertEqual(tilted.withView { ScanLines.acrossBars(in: $0) }, .both)
        XCTAssertEqual(GrayImage(width: 300, height: 200, fill: 128).withView { ScanLines.acrossBars(in: $0) }, .both)
    }
}
