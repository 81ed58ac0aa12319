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
        let w = Double(image.width)
        return resampled(image, width: image.width) { x in w * (x / w + k * (x / w) * (1 - x / w)) }
    }

    /// `image` `width` pixels wide, output column x showing source column `source(x)`, linearly
    /// interpolated.
    private func resampled(_ image: GrayImage, width w: Int, source: (Double) -> Double) -> GrayImage {
        var pixels = [UInt8](repeating: 255, count: w * image.height)
        for y in 0..<image.height {
            for x in 0..<w {
                let source = source(Double(x))
                let x0 = min(image.width - 1, Int(source)), x1 = min(image.width - 1, x0 + 1), f = source - Double(x0)
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
        func tally(_ counts: [(String, Int)], unanimous: Bool = false) -> String? {
            var tally = EAN13LineReader.Tally()
            for (text, lines) in counts {
                for line in 0..<lines { tally.add(Array(text.utf8), from: (0, line), to: (100, line), orientation: ZBAR_ORIENT_UP) }
            }
            return tally.winner(unanimous: unanimous).map { String(decoding: $0.data, as: UTF8.self) }
        }
        XCTAssertNil(tally([(gtin, 2)]), "two lines are too few")
        XCTAssertEqual(tally([(gtin, 3)]), gtin)
        XCTAssertNil(tally([(gtin, 8), ("4006381333948", 3)]), "another valid text on 3 lines: not three times fewer")
        XCTAssertEqual(tally([(gtin, 9), ("4006381333948", 3)]), gtin)
        XCTAssertNil(tally([]))
        // The sparse first pass: any other text on any line leaves the image to zbar.
        XCTAssertEqual(tally([(gtin, 3)], unanimous: true), gtin)
        XCTAssertNil(tally([(gtin, 2)], unanimous: true))
        XCTAssertNil(tally([(gtin, 20), ("4006381333948", 1)], unanimous: true))
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
            let four = SIMD4(runs[0], runs[1], runs[2], runs[3])
            XCTAssertEqual(EAN13LineReader.Runs.character(four, left: true).map { [$0.0, $0.1 ? 1 : 0] }, [UInt8(digit), 0])
            XCTAssertEqual(EAN13LineReader.Runs.character(SIMD4(four[3], four[2], four[1], four[0]), left: true).map { [$0.0, $0.1 ? 1 : 0] },
                           [UInt8(digit), 1], "G \(digit)")
        }
    }

    // MARK: The sparse first pass (`sparse+ean-lines`, issue #32)

    private func sparseRead(_ image: GrayImage) throws -> [ZbarSymbol] {
        try image.withView { try EAN13LineReader.read($0, budget: .standard, sparse: true) }
    }

    func testTheSparsePassReadsACleanLabelFromAFewRowsOrElseColumns() throws {
        let image = try zintEAN()
        for degrees in [0.0, 90] {
            let turned = degrees == 0 ? image : try image.withView { try $0.rotated(degrees: degrees) }.image
            let symbols = try sparseRead(turned)
            XCTAssertEqual(texts(symbols), [gtin], "\(degrees) degrees")
            // At 90 degrees the rows cross no bar: the columns read it.
            XCTAssert((EAN13LineReader.minimumLines...EAN13LineReader.sparseLines).contains(symbols.first?.quality ?? 0), "\(degrees) degrees")
        }

        // The plan starts with it when EAN-13 is the only symbology and no add-on is wanted
        // (it reads none: SymbologyGapTests reads them with zbar); else zbar's scan comes first.
        let sparse = ScanPass(lines: .sparse, decoder: .eanLines)
        XCTAssertEqual(BarcodeReader.plan(width: 640, height: 480, formats: [.ean13]).first, sparse)
        XCTAssertEqual(BarcodeReader.plan(width: 6000, height: 4000, formats: [.ean13]).first, sparse)
        XCTAssertFalse(BarcodeReader.plan(width: 640, height: 480, formats: [.ean13], addOns: true).contains(sparse))
        XCTAssertFalse(BarcodeReader.plan(width: 640, height: 480, formats: [.ean13, .code128]).contains(sparse))
        let results = try BarcodeReader(options: ReaderOptions(formats: [.ean13])).read(image)
        XCTAssertEqual(results.map(\.text), [gtin])
        XCTAssertEqual(results.first?.pass, sparse)
        XCTAssertEqual(results.first?.pass.description, "sparse+ean-lines")
        // With add-ons wanted, zbar's passes read the label and its add-on.
        var addOns = ReaderOptions(formats: [.ean13])
        addOns.eanAddOns = true
        let labelled = try Encoders.zint(["-b", "13", "--scale=2", "--quietzones", "-d", gtin + "+12345"])
        XCTAssertEqual(try BarcodeReader(options: ReaderOptions(formats: [.ean13])).read(labelled).first?.pass, sparse)
        XCTAssertEqual(try BarcodeReader(options: addOns).read(labelled).first?.addOn, "12345")
    }

    func testTheUnsmoothedLinesReadFineBlurredBarsThatSmoothingMerges() throws {
        // zint's 2 px modules drawn 2.2 px wide and blurred: a book cover's crop.
        let twoPixel = try Encoders.zint(["-b", "13", "--scale=1", "--quietzones", "-d", String(gtin.prefix(12))])
        let fine = try resampled(twoPixel, width: twoPixel.width * 11 / 10) { $0 / 1.1 }.withView { try $0.blurred() }
        XCTAssertEqual(texts(try sparseRead(fine)), [gtin])
        XCTAssertEqual(texts(try fine.withView { try EAN13LineReader.read($0, budget: .standard) }), [], "every line smoothed reads it after all")
    }

    func testTwoLabelsAreLeftToZbarWhichReadsBoth() throws {
        let other = "9780804816632"
        let second = try Encoders.zint(["-b", "13", "--scale=2", "--quietzones", "-d", String(other.prefix(12))])
        // Side by side, the second a fifth as tall: most rows cross only the first, so it has
        // more than `dominance` times the second's lines, which the full pass would take.
        let parts = [try zintEAN(), second.withView { $0.region(x: 0, y: 0, width: second.width, height: second.height / 5) }.copy()]
        let gap = 40
        var canvas = GrayImage(width: parts.map(\.width).reduce(0, +) + gap, height: parts.map(\.height).max() ?? 0)
        var x0 = 0
        for part in parts {
            for y in 0..<part.height { for x in 0..<part.width { canvas.pixels[y * canvas.rowStride + x0 + x] = part[x, y] } }
            x0 += part.width + gap
        }
        XCTAssertEqual(try sparseRead(canvas).count, 0)
        let results = try BarcodeReader(options: ReaderOptions(formats: [.ean13])).read(canvas)
        XCTAssertEqual(results.map(\.text).sorted(), [gtin, other].sorted())
        XCTAssertNotEqual(results.first?.pass.decoder, .eanLines)
    }

    /// The lines' slopes are computed in integers (issue #32); the edges, and so every run, are
    /// the ones the floating-point computation the reader had before finds, on bar-like lines
    /// with noise, smoothed or not.
    func testTheIntegerSlopesFindTheEdgesFloatingPointFinds() {
        var generator = SplitMix64(seed: 32)
        for trial in 0..<200 {
            var line: [UInt8] = []
            let count = Int.random(in: 8...600, using: &generator)
            var dark = Bool.random(using: &generator)
            while line.count < count {
                let level = dark ? Int.random(in: 0...90, using: &generator) : Int.random(in: 150...255, using: &generator)
                for _ in 0..<Int.random(in: 1...9, using: &generator) where line.count < count {
                    line.append(UInt8(clamping: level + Int.random(in: -12...12, using: &generator)))
                }
                dark.toggle()
            }
            for smoothed in [true, false] {
                var sums = [Int32](repeating: 0, count: count), slopes = sums
                let steepest = line.withUnsafeBufferPointer { EAN13LineReader.Runs.slopes(of: $0, smoothed: smoothed, sums: &sums, slopes: &slopes) }
                let runs = EAN13LineReader.Runs(slopes: slopes[...], steepest: steepest)
                let expected = Self.floatingPointWidths(line, smoothed: smoothed)
                XCTAssertEqual(runs.widths, expected.widths, "trial \(trial), smoothed \(smoothed)")
                XCTAssertEqual(runs.dark, expected.dark, "trial \(trial), smoothed \(smoothed)")
            }
        }
    }

    /// The run widths as the reader computed them in floating point before issue #32.
    private static func floatingPointWidths(_ pixels: [UInt8], smoothed: Bool) -> (widths: [Float], dark: [Bool]) {
        let n = pixels.count
        let line = pixels.map(Float.init)
        var smooth = line
        if smoothed {
            for i in 0..<n {
                var sum: Float = 0
                for (k, w) in [Float(1), 4, 6, 4, 1].enumerated() { sum += w * line[min(n - 1, max(0, i + k - 2))] }
                smooth[i] = sum / 16
            }
        }
        var slope = [Float](repeating: 0, count: n)
        var steepest: Float = 0
        for i in 1..<(n - 1) {
            slope[i] = (smooth[i + 1] - smooth[i - 1]) / 2
            steepest = max(steepest, abs(slope[i]))
        }
        let threshold = max(3, steepest / 10)
        var edges: [(position: Float, slope: Float)] = []
        for i in 1..<(n - 1) {
            let s = slope[i]
            guard abs(s) >= threshold, abs(s) >= abs(slope[i - 1]), abs(s) > abs(slope[i + 1]) else { continue }
            let curvature = slope[i - 1] - 2 * s + slope[i + 1]
            let offset = curvature == 0 ? 0 : max(-0.5, min(0.5, 0.5 * (slope[i - 1] - slope[i + 1]) / curvature))
            if let last = edges.last, (last.slope < 0) == (s < 0) {
                if abs(s) > abs(last.slope) { edges[edges.count - 1] = (Float(i) + offset, s) }
            } else {
                edges.append((Float(i) + offset, s))
            }
        }
        guard let first = edges.first, let lastEdge = edges.last else { return ([], []) }
        var widths: [Float] = [], dark: [Bool] = []
        var previous: Float = 0
        var isDark = first.slope > 0
        for edge in edges {
            widths.append(edge.position - previous)
            dark.append(isDark)
            previous = edge.position
            isDark.toggle()
        }
        return (widths + [Float(n) - previous], dark + [lastEdge.slope < 0])
    }
}
