import EdgeScanning
import XCTest

final class ScanPassTests: XCTestCase {
    func testNamesRoundTrip() throws {
        for name in ["plain", "invert", "upscale-2+pad-10", "downscale-3+rotate-45", "blur+binarize", "rotate--15", "erode", "erode+dilate", "sharpen", "stretch", "regions", "regions+upscale-2", "across-bars", "sparse+across-bars", "downscale-2+sparse+across-bars"] {
            XCTAssertEqual(try ScanPass(parsing: name).description, name)
        }
    }

    func testUnknownOrOutOfRangePassesAreRefused() {
        for bad in ["", "wobble", "upscale-9", "rotate", "pad-99", "invert-2", "plain+invert+", "across", "across-bar", "across-bars-2"] {
            XCTAssertThrowsError(try ScanPass(parsing: bad), bad) { error in
                XCTAssertEqual((error as? ScanError)?.code, .unknownPass, bad)
            }
        }
    }

    func testSymbologyListParsing() throws {
        XCTAssertEqual(try BarcodeFormat.parseList("qr, code128"), [.qr, .code128])
        XCTAssertThrowsError(try BarcodeFormat.parseList("qr,pdf417"))
        XCTAssertThrowsError(try BarcodeFormat.parseList(""))
    }
}
