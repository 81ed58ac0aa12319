import EdgeImaging
@testable import EdgeScanning
import XCTest

final class QRRectifierTests: XCTestCase {
    func testFinderPatternsOfAnUprightCodeAreFoundAtTheirCentres() throws {
        // qrencode -s 8 -m 4, version 1: finder centres at (4 + 3.5) * 8 = 60 and (4 + 21 - 3.5) * 8 = 172.
        let image = try TestImages.sample("linking-code.png").withView { try $0.binarized(keepDarkAreas: true) }
        let finders = try QRFinderLocator.locate(in: image)
        XCTAssertGreaterThanOrEqual(finders.count, 3, "\(finders)")
        for (x, y) in [(60.0, 60.0), (172.0, 60.0), (60.0, 172.0)] {
            let f = try XCTUnwrap(finders.prefix(3).first { abs($0.x - x) < 2 && abs($0.y - y) < 2 }, "no strong finder near \(x),\(y): \(finders)")
            XCTAssertEqual(f.module, 8, accuracy: 1)
        }
    }

    /// Under strong perspective a side of the finder triangle can be longer than its diagonal:
    /// the fixture (qrencode version 2, ImageMagick -distort Perspective putting the finder
    /// centres 170, 206 and 196 px apart, corner angle 62 degrees) was read as the wrong corner
    /// when only the longest side decided. zbar alone does not read it.
    func testACodeWhoseSideOutgrowsItsDiagonalIsRectified() throws {
        let image = try ImageLoader.load(path: TestImages.fixture("acute-perspective-qr.png"))
        XCTAssertEqual(try BarcodeReader(options: .plainOnly(formats: [.qr])).read(image), [])
        let results = try BarcodeReader(options: ReaderOptions(formats: [.qr], passes: [ScanPass(region: .rectify)])).read(image)
        XCTAssertEqual(results.map(\.text), ["VERSION 2 TEST"])
    }

    /// A two-tone image (a 1-bit scan, qrencode's output) binarises to itself: Otsu's threshold
    /// sits mid-way between the two levels. At 1 (the first level of the tie) a dark pixel whose
    /// window held a few light ones turned light, hollowing the finder centres of bled,
    /// quiet-zone-less scans (qrcode-2/n1086.png) until no finder triple was left.
    func testATwoToneImageBinarisesToItself() throws {
        let image = try XCTUnwrap(try Encoders.qrencode(["-s", "14", "-m", "0", "-l", "H"], "H15-03-34").first)
        XCTAssertEqual(image.withView { $0.otsuThreshold() }, 128)
        let solid = try image.withView { try $0.binarized(keepDarkAreas: true) }
        XCTAssertEqual(solid.pixels.count, image.pixels.count)
        XCTAssertEqual(zip(solid.pixels, image.pixels).filter { $0 != $1 }.count, 0, "pixels that changed")
    }

    func testPerspectiveCodeIsReadByTheRectifyPassAndCornersMapBack() throws {
        // samples/linking-code.png under a perspective warp (ImageMagick -distort Perspective):
        // zbar alone does not find it.
        let image = try ImageLoader.load(path: TestImages.fixture("perspective-qr.png"))
        XCTAssertEqual(try BarcodeReader(options: .plainOnly()).read(image), [])
        let results = try BarcodeReader(options: ReaderOptions(formats: [.qr], passes: [ScanPass(region: .rectify)])).read(image)
        let result = try XCTUnwrap(results.first)
        XCTAssertEqual(results.count, 1, "candidates reading the same code are reported once")
        XCTAssertEqual(result.text, "AB-7KX-M4PQR")
        XCTAssertEqual(result.pass.description, "rectify")
        XCTAssertEqual(result.points.count, 4)
        for p in result.points {
            XCTAssertTrue((0...image.width).contains(p.x) && (0...image.height).contains(p.y), "\(p)")
        }
    }

    func testNoFindersNoCandidates() {
        XCTAssertTrue(try QRRectifier.candidates(from: GrayImage(width: 300, height: 200)).isEmpty)
        XCTAssertTrue(try QRRectifier.candidates(from: GrayImage(width: 5, height: 5)).isEmpty)
    }

    func testHomographyMapsTheFourPointsAndRefusesDegenerateOnes() throws {
        let from = [(x: 0.0, y: 0.0), (x: 100.0, y: 0.0), (x: 0.0, y: 100.0), (x: 100.0, y: 100.0)]
        let to = [(x: 10.0, y: 5.0), (x: 90.0, y: 20.0), (x: 0.0, y: 110.0), (x: 120.0, y: 95.0)]
        let h = try XCTUnwrap(Homography(from: from, to: to))
        for (a, b) in zip(from, to) {
            let m = h.apply(a.x, a.y)
            XCTAssertEqual(m.x, b.x, accuracy: 1e-6)
            XCTAssertEqual(m.y, b.y, accuracy: 1e-6)
        }
        let collinear = [(x: 0.0, y: 0.0), (x: 1.0, y: 1.0), (x: 2.0, y: 2.0), (x: 3.0, y: 3.0)]
        XCTAssertNil(Homography(from: collinear, to: to))
    }
}

extension QRRectifierTests {
    /// Once a warp of one finder triple reads, that triple's other warps are not scanned; the
    /// other triples still are, so two codes at an angle in one photo are both reported. (Set
    /// 400 px apart: closer, finders of the two codes form triples that look squarer than either
    /// code's own, and the rectifier tries only the best three.)
    func testTwoCodesAtAnAngleInOnePhotoAreBothRectified() throws {
        let code = try ImageLoader.load(path: TestImages.fixture("perspective-qr.png"))
        let gap = 400
        var both = GrayImage(width: 2 * code.width + gap, height: code.height)
        for y in 0..<code.height { for x in 0..<code.width { both[x, y] = code[x, y]; both[x + code.width + gap, y] = code[x, y] } }
        XCTAssertEqual(try BarcodeReader(options: .plainOnly(formats: [.qr])).read(both), [])
        let results = try BarcodeReader(options: ReaderOptions(formats: [.qr], passes: [ScanPass(region: .rectify)])).read(both)
        XCTAssertEqual(results.map(\.text), ["AB-7KX-M4PQR", "AB-7KX-M4PQR"], "each code once")
        XCTAssertEqual(results.filter { $0.points.allSatisfy { $0.x < code.width } }.count, 1, "\(results.map(\.points))")
        XCTAssertEqual(results.filter { $0.points.allSatisfy { $0.x >= code.width + gap } }.count, 1, "\(results.map(\.points))")
    }
}
