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
    /// The vector count (16 columns at once) equals the plain per-sample test on random images
    /// of many widths, with differences around the thresholds (24, 25, twice the other way).
    func testEdgesCountedSixteenColumnsAtATimeMatchTheRule() {
        var state: UInt64 = 11
        func next() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(truncatingIfNeeded: state >> 33)
        }
        for (w, h) in [(3, 3), (17, 9), (18, 30), (33, 12), (100, 40), (391, 206), (700, 50), (1100, 20)] {
            var image = GrayImage(width: w, height: h)
            // Steps of 0, 12, 24, 25, 26, 50 or 255 between neighbours: every side of each test.
            let steps = [0, 12, 24, 25, 26, 50, 255]
            for i in image.pixels.indices { image.pixels[i] = UInt8(clamping: 100 + (next() % 2 == 0 ? 1 : -1) * steps[next() % steps.count] / 2) }
            var vertical = 0, horizontal = 0
            let rowStep = max(3, h / 256), columnStep = max(2, w / 512)
            for y in stride(from: 1, to: h - 1, by: rowStep) {
                for x in stride(from: 1, to: w - 1, by: columnStep) {
                    let dx = abs(Int(image[x + 1, y]) - Int(image[x - 1, y])), dy = abs(Int(image[x, y + 1]) - Int(image[x, y - 1]))
                    if dx > 24 && dx > 2 * dy { vertical += 1 } else if dy > 24 && dy > 2 * dx { horizontal += 1 }
                }
            }
            let counts = image.withView { ScanLines.edgeCounts(in: $0) }
            XCTAssertEqual([counts.vertical, counts.horizontal], [vertical, horizontal], "\(w) x \(h)")
        }
    }
}
