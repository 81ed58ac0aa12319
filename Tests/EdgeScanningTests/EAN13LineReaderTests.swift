import CZbar
import EdgeImaging
import EdgeTestSupport
@testable import EdgeScanning
import XCTest

/// edge's own EAN-13 line reader (issue #15): bars whose module width drifts along the code, which
/// zbar gives up on, every orientation, and the rule that keeps a few lines' misreads out.
final class EAN13LineReaderTests: XCTestCase {
    private let gtin = "4006381333931"

    private func zintEAN() throws -> GrayImage {
        try Encoders.zint(["-b", "13", "--scale=2", "--quietzones", "-d", String(gtin.prefix(12))])
    }

    /// `image` resampled along its rows so that output column x shows source column
    /// w * (u + k u (1 - u)), u = x / w: modules 1 + k times as wide at the left as a module
    /// is printed, 1 - k times at the right (a label bent away from the camera).
    private func drifting(_ image: GrayImage, k: Double) -> GrayImage {
        let w = image.width
        var pixels = [UInt8](repeating: 255, count: w * image.height)
        for y in 0..<image.height {
            for x in 0..<w {
                let u = Double(x) / Double(w)
                let source = Double(w) * (u + k * u * (1 - u))
                let x0 = min(w - 1, Int(source)), x1 = min(w - 1, x0 + 1), f = source - Double(x0)
                let a = Double(image.pixels[y * image.rowStride + x0]), b = Double(image.pixels[y * image.rowStride + x1])
                pixels[y * w + x] = UInt8((a + (b - a) * f).rounded())
            }
        }
        return GrayImage(width: w, height: image.height, pixels: pixels)
    }

    private func texts(_ symbols: [ZbarSymbol]) -> [String] { symbols.map { String(decoding: $0.data, as: UTF8.self) } }

    func testBarsWhoseModuleWidthDriftsAreReadWhereZbarGivesUp() throws {
        let image = drifting(try zintEAN(), k: 0.5)
        XCTAssertEqual(try ZbarScanner(formats: [.ean13], addOns: false).scan(image).count, 0, "zbar reads it after all")
        let symbols = try image.withView { try EAN13LineReader.read($0, budget: .standard) }
        XCTAssertEqual(texts(symbols), [gtin])
        XCTAssertGreaterThanOrEqual(symbols.first?.quality ?? 0, 50, "most rows agree")

        // zbar reads it from an enlarged, binarised copy; the pass after a plain scan that failed:
        let results = try BarcodeReader(options: ReaderOptions(formats: [.ean13], passes: [.plain, ScanPass(decoder: .eanLines)])).read(image)
        XCTAssertEqual(results.map(\.text), [gtin])
        XCTAssertEqual(results.first?.pass, ScanPass(decoder: .eanLines))
        // The corners lie on the code: its bars span the middle of the image's width.
        let xs = results.first?.points.map(\.x) ?? []
        XCTAssertLessThan(xs.min() ?? .max, image.width / 4)
        XCTAssertGreaterThan(xs.max() ?? 0, image.width * 3 / 4)
    }

    func testTheReaderEndsAPassAfterItsImageSteps() throws {
        // `invert+ean-lines`: the steps first, then edge's reader instead of zbar.
        let light = try drifting(try zintEAN(), k: 0.5).withView { try $0.inverted() }
        let pass = try ScanPass(parsing: "invert+ean-lines")
        let results = try BarcodeReader(options: ReaderOptions(formats: [.ean13], passes: [ScanPass(decoder: .eanLines), pass])).read(light)
        XCTAssertEqual(results.map(\.text), [gtin])
        XCTAssertEqual(results.first?.pass, pass)
        XCTAssertEqual(try BarcodeReader(options: ReaderOptions(formats: [.qr, .code128], passes: [ScanPass(decoder: .eanLines)])).read(light), [],
                       "without EAN-13 the pass is skipped")
    }

    func testEveryOrientationIsReadAndReportedAsZbarWould() throws {
        let image = try zintEAN()
        for degrees in [0.0, 90, 180, 270] {
            let turned = degrees == 0 ? image : try image.withView { try $0.rotated(degrees: degrees) }.image
            let symbols = try turned.withView { try EAN13LineReader.read($0, budget: .standard) }
            XCTAssertEqual(texts(symbols), [gtin], "\(degrees) degrees")
            let zbar = try ZbarScanner(formats: [.ean13], addOns: false).scan(turned)
            XCTAssertEqual(zbar.count, 1)
            XCTAssertEqual(symbols.first?.orientation, zbar.first?.orientation, "\(degrees) degrees")
        }
    }

    func testATextIsReportedOnlyWhenEnoughLinesAndMostOfThemAgree() {
        func tally(_ counts: [(String, Int)]) -> String? {
            var tally = EAN13LineReader.Tally()
            for (text, lines) in counts {
                for line in 0..<lines { tally.add(Array(text.utf8), from: (0, line), to: (100, line), orientation: ZBAR_ORIENT_UP) }
            }
            return tally.winner().map { String(decoding: $0.data, as: UTF8.self) }
        }
        XCTAssertNil(tally([(gtin, 2)]), "two lines are too few")
        XCTAssertEqual(tally([(gtin, 3)]), gtin)
        XCTAssertNil(tally([(gtin, 8), ("4006381333948", 3)]), "another valid text on 3 lines: not three times fewer")
        XCTAssertEqual(tally([(gtin, 9), ("4006381333948", 3)]), gtin)
        XCTAssertNil(tally([]))
    }

    func testBlurredBarsAndNoiseGiveNoWrongText() throws {
        var blurred = try zintEAN()
        for _ in 0..<6 { blurred = try blurred.withView { try $0.blurred() } }
        let read = texts(try blurred.withView { try EAN13LineReader.read($0, budget: .standard) })
        XCTAssert(read.isEmpty || read == [gtin], "\(read)")

        var generator = SplitMix64(seed: 15)
        let noise = GrayImage(width: 400, height: 200, pixels: (0..<80_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
        XCTAssertEqual(try noise.withView { try EAN13LineReader.read($0, budget: .standard) }.count, 0)
    }

    func testTheCharacterTablesMatchTheStandardsModulePatterns() {
        // ISO/IEC 15420's L code as module strings (0 light, 1 dark): the widths are its runs.
        let lPatterns = ["0001101", "0011001", "0010011", "0111101", "0100011", "0110001", "0101111", "0111011", "0110111", "0001011"]
        for (digit, pattern) in lPatterns.enumerated() {
            var runs: [Float] = []
            var previous: Character?
            for c in pattern {
                if c == previous, let last = runs.popLast() { runs.append(last + 1) } else { runs.append(1) }
                previous = c
            }
            XCTAssertEqual(EAN13LineReader.lCode[digit], runs, "L \(digit)")
            XCTAssertEqual(EAN13LineReader.Runs.character(runs, left: true).map { [$0.0, $0.1 ? 1 : 0] }, [UInt8(digit), 0])
            XCTAssertEqual(EAN13LineReader.Runs.character(runs.reversed(), left: true).map { [$0.0, $0.1 ? 1 : 0] }, [UInt8(digit), 1], "G \(digit)")
        }
    }
}
