import EdgeImaging
@testable import EdgeScanning
import XCTest

final class QRDirectReaderTests: XCTestCase {
    /// qrencode codes from version 1 to 10 at 2-8 px a module are read straight from the image,
    /// with the text, the corners in zbar's order (top-left, bottom-left, bottom-right, top-right)
    /// and the facing zbar reports for an upright code.
    func testCleanCodesAreReadWithTheirCorners() throws {
        for (text, module) in [("AB-7KX-M4PQR", 2), ("https://example.com/po/2026-00042", 3), (String(repeating: "LINK-0123456789-", count: 6), 4),
                               (String(repeating: "edge direct read ", count: 12), 8)] {
            let image = try XCTUnwrap(try Encoders.qrencode(["-s", "\(module)", "-m", "4"], text).first)
            let reads = try image.withView { try QRDirectReader.read($0, budget: .standard) }
            XCTAssertEqual(reads.map(\.content.text), [text], "\(module) px")
            let read = try XCTUnwrap(reads.first)
            XCTAssertEqual(read.orientation, .up)
            XCTAssertEqual(read.corners.count, 4, "zip over no corners would compare nothing")
            let near = Double(4 * module), far = Double(image.width - 4 * module)
            for (corner, expected) in zip(read.corners, [(near, near), (near, far), (far, far), (far, near)]) {
                XCTAssertEqual(corner.x, expected.0, accuracy: 1.5, "\(module) px: \(read.corners)")
                XCTAssertEqual(corner.y, expected.1, accuracy: 1.5, "\(module) px: \(read.corners)")
            }
        }
    }

    /// A code turned by a right angle or upside down is read, and faces the way zbar would say;
    /// codes turned by 30 and 45 degrees (rows cross their finders aslant: the module size from
    /// the runs is corrected for the turn) are read too.
    func testTurnedCodesAreReadFacingTheirWay() throws {
        let code = try XCTUnwrap(try Encoders.qrencode(["-s", "5", "-m", "4"], "PO-2026-00042 DOCK 3").first)
        var facings: [Double: SymbolOrientation] = [:]
        for degrees in [0.0, 90, 180, 270, 30] {
            let turned = try code.withView { try $0.rotated(degrees: degrees).image }
            let reads = try turned.withView { try QRDirectReader.read($0, budget: .standard) }
            XCTAssertEqual(reads.map(\.content.text), ["PO-2026-00042 DOCK 3"], "\(degrees) degrees")
            facings[degrees] = reads.first?.orientation
        }
        XCTAssertEqual(facings[0], .up)
        XCTAssertEqual(facings[180], .down)
        XCTAssertEqual(Set([facings[90], facings[270]]), [.right, .left])
        // A version-10 code at 45 degrees: rows cross its finders over 7 x 1.41 modules, which,
        // uncorrected, puts the size two versions low.
        let large = try XCTUnwrap(try Encoders.qrencode(["-s", "4", "-m", "4", "-v", "10"], "turned by 45 degrees").first)
        let diagonal = try large.withView { try $0.rotated(degrees: 45).image }
        XCTAssertEqual(try diagonal.withView { try QRDirectReader.read($0, budget: .standard) }.map(\.content.text), ["turned by 45 degrees"])
        // zbar's own reading of the quarter turn says which way that is.
        let quarter = try code.withView { try $0.rotated(degrees: 90).image }
        let zbar = try BarcodeReader(options: .plainOnly(formats: [.qr])).read(quarter)
        XCTAssertEqual(zbar.first?.orientation, facings[90])
    }

    /// Under perspective the parallelogram of the finder centres misses the far corner by more
    /// than a module; the alignment pattern found near it fixes the grid.
    func testACodeInPerspectiveIsReadThroughItsAlignmentPattern() throws {
        let code = try XCTUnwrap(try Encoders.qrencode(["-s", "6", "-m", "4", "-v", "5"], "perspective: the far corner moves").first)
        let size = Double(code.width)
        // The fourth corner 12 px each way inside where the other three put it: about two
        // modules off at the alignment pattern.
        let image = Self.warp(code, to: [(30, 30), (size + 30, 45), (40, size + 30), (size + 28, size + 33)], size: code.width + 80)
        let reads = try image.withView { try QRDirectReader.read($0, budget: .standard) }
        XCTAssertEqual(reads.map(\.content.text), ["perspective: the far corner moves"])
    }

    /// Light falling off across the code (the right side's light modules darker than a global
    /// threshold would allow) is split locally, block by block.
    func testUnevenLightIsThresholdedLocally() throws {
        var image = try XCTUnwrap(try Encoders.qrencode(["-s", "4", "-m", "4"], "uneven light across the label").first)
        for y in 0..<image.height {
            for x in 0..<image.width {
                let light = 1 - 0.7 * Double(x) / Double(image.width)
                image[x, y] = UInt8(20 + Double(image[x, y]) * light * 0.9)
            }
        }
        XCTAssertLessThan(Int(image[image.width - 3, 3]), (Int(image[3, 3]) + 20) / 2,
                          "the right margin is darker than a threshold between the left's dark and light")
        let reads = try image.withView { try QRDirectReader.read($0, budget: .standard) }
        XCTAssertEqual(reads.map(\.content.text), ["uneven light across the label"])
    }

    /// Two codes in one photo: each triple that decodes uses up its finders, and the other is read.
    func testTwoCodesSideBySideAreBothRead() throws {
        let left = try XCTUnwrap(try Encoders.qrencode(["-s", "4", "-m", "4"], "left code").first)
        let right = try XCTUnwrap(try Encoders.qrencode(["-s", "5", "-m", "4"], "right code, larger").first)
        var both = GrayImage(width: left.width + right.width, height: max(left.height, right.height))
        for y in 0..<left.height { for x in 0..<left.width { both[x, y] = left[x, y] } }
        for y in 0..<right.height { for x in 0..<right.width { both[left.width + x, y] = right[x, y] } }
        let reads = try both.withView { try QRDirectReader.read($0, budget: .standard) }
        XCTAssertEqual(Set(reads.map(\.content.text)), ["left code", "right code, larger"])
    }

    /// A grid damaged past its error correction gives no text rather than a wrong one, and the
    /// photo plan's zbar passes after it are still run.
    func testADamagedCodeReadsNothingRatherThanSomethingWrong() throws {
        var image = try XCTUnwrap(try Encoders.qrencode(["-s", "4", "-m", "4", "-l", "L"], "damaged beyond level L").first)
        let quarter = image.width / 4
        for y in (image.height / 2 - 8)..<(image.height / 2 + 8) { for x in quarter..<(image.width - quarter) { image[x, y] = 0 } }
        XCTAssertEqual(try image.withView { try QRDirectReader.read($0, budget: .standard) }.count, 0)
        XCTAssertEqual(try BarcodeReader(options: ReaderOptions(formats: [.qr])).read(image).filter { $0.text != "damaged beyond level L" }, [])
    }

    /// Hostile input: noise, a flat image, one too small, and a sheet tiled with finder patterns
    /// (every one a candidate) read nothing; the finders kept stay at `capacity`.
    func testNoiseFlatTinyAndFinderTiledImagesReadNothing() throws {
        var noise = GrayImage(width: 320, height: 240)
        var state: UInt64 = 42
        for i in noise.pixels.indices {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            noise.pixels[i] = UInt8(truncatingIfNeeded: state >> 56)
        }
        var tiled = GrayImage(width: 36 * 12, height: 36 * 12)
        for ty in 0..<12 {
            for tx in 0..<12 {
                // A 7-module finder at 4 px a module in a 9-module cell.
                for y in 0..<28 {
                    for x in 0..<28 {
                        let ring = max(abs(x / 4 - 3), abs(y / 4 - 3))
                        tiled[tx * 36 + 4 + x, ty * 36 + 4 + y] = ring == 2 ? 255 : 0
                    }
                }
            }
        }
        for (name, image) in [("noise", noise), ("flat", GrayImage(width: 200, height: 200)), ("tiny", GrayImage(width: 20, height: 400)),
                              ("tiled", tiled)] {
            XCTAssertEqual(try image.withView { try QRDirectReader.read($0, budget: .standard) }.count, 0, name)
        }
        let finders = try tiled.withView { try QRDirectReader.finders(in: $0, budget: .standard) }
        XCTAssertEqual(finders.count, QRDirectReader.capacity)
    }

    /// The block thresholds (SIMD block statistics, sliding 5 x 5 sums) equal the rule computed
    /// the plain way, block by block, on random images of many shapes, flat patches included.
    func testLocalThresholdsFollowTheRuleOnEveryShape() throws {
        var state: UInt64 = 7
        func next() -> UInt8 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        for (w, h) in [(16, 8), (21, 21), (40, 33), (47, 90), (64, 64), (129, 17), (200, 151)] {
            var image = GrayImage(width: w, height: h)
            for y in 0..<h { for x in 0..<w { image[x, y] = x < w / 3 ? 200 &+ next() % 20 : next() } }
            let threshold = image.withView { LocalThreshold($0) }
            let columns = (w + 7) / 8, rows = (h + 7) / 8
            var levels = [Int](repeating: 0, count: columns * rows)
            for by in 0..<rows {
                for bx in 0..<columns {
                    // Pairs of blocks from one 16-pixel load, the last pair (or a last block alone)
                    // at the row's end.
                    let pair = bx / 2 * 2
                    let x0 = min(pair * 8, w - 16) + (bx == columns - 1 && bx == pair ? 8 : (bx - pair) * 8), y0 = min(by * 8, h - 8)
                    let pixels = (y0..<(y0 + 8)).flatMap { y in (x0..<(x0 + 8)).map { Int(image[$0, y]) } }
                    let lo = pixels.min() ?? 0, hi = pixels.max() ?? 0
                    var level = pixels.reduce(0, +) / 64
                    if hi - lo <= 24 {
                        level = lo / 2
                        if by > 0 && bx > 0 {
                            let i = by * columns + bx
                            let neighbours = (levels[i - columns] + 2 * levels[i - 1] + levels[i - columns - 1]) / 4
                            if lo < neighbours { level = neighbours }
                        }
                    }
                    levels[by * columns + bx] = level
                }
            }
            for by in 0..<rows {
                for bx in 0..<columns {
                    let across = min(5, columns), down = min(5, rows)
                    let c0 = max(0, min(bx - 2, columns - across)), r0 = max(0, min(by - 2, rows - down))
                    let sum = (r0..<(r0 + down)).flatMap { r in (c0..<(c0 + across)).map { levels[r * columns + $0] } }.reduce(0, +)
                    XCTAssertEqual(Int(threshold.at(bx * 8, by * 8)), sum / (across * down), "\(w) x \(h), block \(bx), \(by)")
                }
            }
        }
    }

    /// The photo plan of a QR-only reader reads a clean QR label with this pass first, and one
    /// without QR never runs it. With 1D symbologies too it comes after the first zbar scan,
    /// which reads a label sheet's QR code and barcodes together.
    func testThePhotoPlanStartsWithTheDirectReaderWhenOnlyQRIsRead() throws {
        let results = try BarcodeReader(options: ReaderOptions(formats: [.qr])).read(TestImages.sample("linking-code.png"))
        XCTAssertEqual(results.map(\.text), ["AB-7KX-M4PQR"])
        XCTAssertEqual(results.first?.pass, ScanPass(decoder: .qrDirect))
        XCTAssertEqual(BarcodeReader.plan(width: 640, height: 480, formats: [.qr]).first, ScanPass(decoder: .qrDirect))
        XCTAssertFalse(BarcodeReader.plan(width: 640, height: 480, formats: [.ean13, .code128, .code39]).contains(ScanPass(decoder: .qrDirect)))
        // A very large photo is read shrunk, like zbar's first scan.
        XCTAssertEqual(BarcodeReader.plan(width: 6000, height: 4000, formats: [.qr]).first, ScanPass([.downscale(4)], decoder: .qrDirect))
        let mixed = BarcodeReader.plan(width: 640, height: 480, formats: [.qr, .code128])
        XCTAssertEqual(Array(mixed.prefix(3)), [ScanPass(lines: .sparse), ScanPass(decoder: .qrDirect), .plain])
        XCTAssertEqual(try BarcodeReader(options: ReaderOptions(formats: [.code128])).read(TestImages.sample("linking-code.png")), [])
    }

    /// `code` drawn so that its corners (top-left, top-right, bottom-left, bottom-right) land on
    /// `corners`, in a `size` x `size` white image (bilinear).
    private static func warp(_ code: GrayImage, to corners: [(Double, Double)], size: Int) -> GrayImage {
        let w = Double(code.width), h = Double(code.height)
        let source = [(x: 0.0, y: 0.0), (x: w, y: 0), (x: 0, y: h), (x: w, y: h)]
        guard let back = Homography(from: corners.map { (x: $0.0, y: $0.1) }, to: source) else { return GrayImage(width: size, height: size) }
        var out = GrayImage(width: size, height: size, fill: 255)
        for y in 0..<size {
            for x in 0..<size {
                let s = back.apply(Double(x) + 0.5, Double(y) + 0.5)
                let sx = s.x - 0.5, sy = s.y - 0.5
                guard sx >= 0, sy >= 0, sx < w - 1, sy < h - 1 else { continue }
                let x0 = Int(sx), y0 = Int(sy), fx = sx - Double(x0), fy = sy - Double(y0)
                let top = Double(code[x0, y0]) * (1 - fx) + Double(code[x0 + 1, y0]) * fx
                let bottom = Double(code[x0, y0 + 1]) * (1 - fx) + Double(code[x0 + 1, y0 + 1]) * fx
                out[x, y] = UInt8(top * (1 - fy) + bottom * fy + 0.5)
            }
        }
        return out
    }
}
