import EdgeScanning
import Foundation
import XCTest

final class ScanPassTests: XCTestCase {
    func testNamesRoundTrip() throws {
        for name in ["plain", "invert", "upscale-2+pad-10", "downscale-3+rotate-45", "blur+binarize", "rotate--15", "erode", "erode+dilate", "sharpen", "stretch", "regions", "regions+upscale-2", "across-bars", "sparse+across-bars", "downscale-2+sparse+across-bars", "downscale-1.5+sparse", "clear-border", "clear-border+pad-10", "qr-direct", "invert+qr-direct"] {
            XCTAssertEqual(try ScanPass(parsing: name).description, name)
        }
    }

    func testUnknownOrOutOfRangePassesAreRefused() {
        for bad in ["", "wobble", "upscale-9", "rotate", "pad-99", "invert-2", "plain+invert+", "across", "across-bar", "across-bars-2", "clear", "clear-borders", "downscale-1.6", "downscale-1.5.5", "downscale-1"] {
            XCTAssertThrowsError(try ScanPass(parsing: bad), bad) { error in
                XCTAssertEqual((error as? ScanError)?.code, .unknownPass, bad)
            }
        }
    }

    /// A pass is its fields (region, transforms, lines, decoder); its name lists them in that
    /// order, `rectify` after the transforms it warps, and parses back to the same value.
    func testANameListsThePassFieldsInOrderAndParsesBackToTheSameValue() throws {
        let pass = ScanPass(region: .regions, [.upscale(2), .pad(10)], lines: .sparseAcrossBars, decoder: .eanLines)
        XCTAssertEqual(pass.description, "regions+upscale-2+pad-10+sparse+across-bars+ean-lines")
        XCTAssertEqual(try ScanPass(parsing: pass.description), pass)
        XCTAssertEqual(ScanPass(region: .rectify, [.binarize], lines: .sparse).description, "binarize+rectify+sparse")
        XCTAssertEqual(try ScanPass(parsing: "invert+ean-lines"), ScanPass([.invert], decoder: .eanLines))
        XCTAssertEqual(try ScanPass(parsing: "downscale-1.5+sparse"), ScanPass([.downscaleThreeHalves], lines: .sparse))
        XCTAssertEqual(try ScanPass(parsing: "ean-model"), ScanPass(decoder: .eanModel))
        XCTAssertEqual(try ScanPass(parsing: "qr-direct"), ScanPass(decoder: .qrDirect))
        XCTAssertEqual(try ScanPass(parsing: "plain"), ScanPass())
    }

    /// Only the name a pass prints is accepted: a word out of place or given twice would print
    /// differently, so it is refused rather than reordered.
    func testNamesOutOfOrderOrWithAFieldTwiceAreRefused() {
        for bad in ["sparse+invert", "across-bars+sparse", "sparse+sparse", "ean-lines+ean-model", "ean-lines+invert", "qr-direct+ean-lines", "qr-direct+invert",
                    "upscale-2+regions", "regions+rectify", "rectify+binarize", "invert-x", "plain+plain"] {
            XCTAssertThrowsError(try ScanPass(parsing: bad), bad) { error in
                XCTAssertEqual((error as? ScanError)?.code, .unknownPass, bad)
            }
        }
    }

    /// Every pass the plans and the camera preset make is the value its printed name parses to.
    func testEveryPlannedPassParsesBackFromItsName() throws {
        var passes = ReaderOptions.cameraFrame().passes ?? []
        for formats in [BarcodeFormat.standard, [.qr], [.code39, .code32], [.ean13], Set(BarcodeFormat.allCases)] {
            for (w, h) in [(40, 30), (120, 100), (400, 120), (640, 480), (1280, 720), (4000, 3000)] {
                for narrowRun in [nil, 3, 4, 6] {
                    passes += BarcodeReader.plan(width: w, height: h, formats: formats, narrowRun: narrowRun)
                }
            }
        }
        XCTAssertGreaterThan(Set(passes).count, 30)
        for pass in passes {
            XCTAssertEqual(try ScanPass(parsing: pass.description), pass, "\(pass): \(pass.region), \(pass.lines), \(pass.decoder)")
        }
    }

    /// Every pass name a result can carry matches `pass` in models/scan-result.schema.json
    /// (`across-bars` once slipped past it: no test read a code with that pass through the CLI).
    func testEveryPlannedPassNameMatchesTheResultSchema() throws {
        let schemaURL = TestImages.packageRoot.appendingPathComponent("models/scan-result.schema.json")
        let schema = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: schemaURL)) as? [String: Any])
        let code = try XCTUnwrap((schema["$defs"] as? [String: Any])?["code"] as? [String: Any])
        let pattern = try XCTUnwrap(((code["properties"] as? [String: Any])?["pass"] as? [String: Any])?["pattern"] as? String)
        let regex = try NSRegularExpression(pattern: pattern)
        var names = Set(["rotate--15", "upscale-2+pad-10", "downscale-2+sparse+across-bars", "downscale-1.5+sparse"])
        for formats in [BarcodeFormat.standard, [.qr], [.code39, .code32], [.ean13]] {
            for (w, h) in [(40, 30), (120, 100), (400, 120), (640, 480), (1280, 720), (4000, 3000)] {
                names.formUnion(BarcodeReader.plan(width: w, height: h, formats: formats).map(\.description))
            }
        }
        names.formUnion((ReaderOptions.cameraFrame().passes ?? []).map(\.description))
        for name in names {
            let range = NSRange(name.startIndex..., in: name)
            XCTAssertNotNil(regex.firstMatch(in: name, range: range), "\(name) does not match \(pattern)")
        }
    }

    func testSymbologyListParsing() throws {
        XCTAssertEqual(try BarcodeFormat.parseList("qr, code128"), [.qr, .code128])
        XCTAssertEqual(try BarcodeFormat.parseList("code39,code32"), [.code39, .code32])
        XCTAssertThrowsError(try BarcodeFormat.parseList("qr,pdf417"))
        XCTAssertThrowsError(try BarcodeFormat.parseList(""))
    }
}
