import CZbar
import EdgeImaging
import EdgeTestSupport
@testable import EdgeScanning
import XCTest

/// edge's EAN-13 reader for blurred bars (issue #15): labels out of focus, whose narrow bars and
/// spaces have no edges left for zbar or `EAN13LineReader`, read by fitting blurred characters.
final class EAN13ModelReaderTests: XCTestCase {
    private let gtin = "4006381333931"

    /// zint's EAN-13 at `pixelsPerModule` (1, 2 or 4), blurred by a Gaussian of `blur` modules
    /// in both directions (a lens out of focus), with seeded noise of up to ±`noise` grey levels.
    private func blurredEAN(pixelsPerModule: Int, blur: Double, noise: Int = 6, seed: UInt64 = 15) throws -> GrayImage {
        let sharp = try Encoders.zint(["-b", "13", "--scale=\(Double(pixelsPerModule) / 2)", "--quietzones", "-d", String(gtin.prefix(12))])
        // A white margin, as a label has on its carton, so the blur has light to spread into.
        let margin = 8 * pixelsPerModule
        let w = sharp.width + 2 * margin, h = sharp.height + 2 * margin
        var plane = [Double](repeating: 255, count: w * h)
        for y in 0..<sharp.height {
            for x in 0..<sharp.width { plane[(y + margin) * w + x + margin] = Double(sharp.pixels[y * sharp.rowStride + x]) }
        }
        let sigma = blur * Double(pixelsPerModule), radius = Int((3 * sigma).rounded(.up))
        let kernel = (-radius...radius).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = kernel.reduce(0, +)
        func pass(_ source: [Double], along dx: Int, _ dy: Int) -> [Double] {
            var out = source
            for y in 0..<h {
                for x in 0..<w {
                    var sum = 0.0
                    for (i, weight) in kernel.enumerated() {
                        let sx = min(w - 1, max(0, x + (i - radius) * dx)), sy = min(h - 1, max(0, y + (i - radius) * dy))
                        sum += weight * source[sy * w + sx]
                    }
                    out[y * w + x] = sum / total
                }
            }
            return out
        }
        plane = pass(pass(plane, along: 1, 0), along: 0, 1)
        var generator = SplitMix64(seed: seed)
        let pixels = plane.map { UInt8(max(0, min(255, $0.rounded() + Double(Int.random(in: -noise...noise, using: &generator))))) }
        return GrayImage(width: w, height: h, pixels: pixels)
    }

    private func texts(_ symbols: [ZbarSymbol]) -> [String] { symbols.map { String(decoding: $0.data, as: UTF8.self) } }

    private func read(_ image: GrayImage, _ method: EAN13LineReader.Method) throws -> [ZbarSymbol] {
        try image.withView { try EAN13LineReader.read($0, budget: .standard, method: method) }
    }

    func testBarsBlurredPastTheirEdgesAreReadByTheModelOnly() throws {
        // Blurred by 0.8 of a module at 2 and 4 pixels a module: zbar and the edge reader find
        // nothing; the whole still-image plan reads it in its last pass.
        for pixelsPerModule in [2, 4] {
            let image = try blurredEAN(pixelsPerModule: pixelsPerModule, blur: 0.8)
            XCTAssertEqual(try ZbarScanner(formats: [.ean13], addOns: false).scan(image).count, 0, "zbar reads it after all")
            XCTAssertEqual(try read(image, .edges).count, 0, "the edge reader reads it after all")
            let symbols = try read(image, .model)
            XCTAssertEqual(texts(symbols), [gtin], "\(pixelsPerModule) px a module")
            XCTAssertGreaterThanOrEqual(symbols.first?.quality ?? 0, 20, "most rows agree")
            // No time budget: on a loaded machine the plan's last pass may start after the default
            // second, and what is tested here is which pass reads it, not how fast.
            let results = try BarcodeReader(options: ReaderOptions(formats: [.ean13], timeBudget: .seconds(600))).read(image)
            XCTAssertEqual(results.map(\.text), [gtin])
            XCTAssertEqual(results.first?.pass, ScanPass(decoder: .eanModel))
            // The corners lie on the code's ends, not on the image's.
            let xs = results.first?.points.map(\.x) ?? []
            XCTAssertGreaterThan(xs.min() ?? 0, 8 * pixelsPerModule)
            XCTAssertLessThan(xs.max() ?? .max, image.width - 8 * pixelsPerModule)
        }
    }

    func testEveryOrientationIsReadAndReportedAsZbarWould() throws {
        let blurred = try blurredEAN(pixelsPerModule: 4, blur: 0.8)
        let sharp = try blurredEAN(pixelsPerModule: 4, blur: 0.1)
        for degrees in [90.0, 180, 270] {
            let turned = try blurred.withView { try $0.rotated(degrees: degrees) }.image
            let symbols = try read(turned, .model)
            XCTAssertEqual(texts(symbols), [gtin], "\(degrees) degrees")
            let zbar = try ZbarScanner(formats: [.ean13], addOns: false).scan(try sharp.withView { try $0.rotated(degrees: degrees) }.image)
            XCTAssertEqual(zbar.count, 1)
            XCTAssertEqual(symbols.first?.orientation, zbar.first?.orientation, "\(degrees) degrees")
        }
    }

    func testHeavierBlurOtherBarsAndNoiseGiveNoWrongText() throws {
        // Past what the templates model (0.9 of a module) a read may fail, never name another code.
        for (pixelsPerModule, blurs) in [(2, [1.3, 1.6, 2.0]), (4, [1.3])] {
            for blur in blurs {
                let read = texts(try read(try blurredEAN(pixelsPerModule: pixelsPerModule, blur: blur, seed: UInt64(blur * 10)), .model))
                XCTAssert(read.isEmpty || read == [gtin], "\(pixelsPerModule) px, blur \(blur): \(read)")
            }
        }
        // Bars that are not EAN-13: a Code 128 and a Code 39, sharp and blurred.
        for symbology in ["20", "8"] {
            var bars = try Encoders.zint(["-b", symbology, "--scale=2", "--quietzones", "-d", "4006381333931"])
            for _ in 0..<3 {
                XCTAssertEqual(try read(bars, .model).count, 0, "zint -b \(symbology)")
                bars = try bars.withView { try $0.blurred() }
            }
        }
        var generator = SplitMix64(seed: 15)
        let noise = GrayImage(width: 400, height: 200, pixels: (0..<80_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
        XCTAssertEqual(try read(noise, .model).count, 0)
    }

    func testThePassComesLastForEAN13AndIsSkippedWithout() throws {
        XCTAssertEqual(try ScanPass(parsing: "ean-model"), ScanPass(decoder: .eanModel))
        XCTAssertEqual(ScanPass(decoder: .eanModel).description, "ean-model")
        XCTAssertFalse(ScanPass(decoder: .eanModel).transformsImage)
        XCTAssertEqual(BarcodeReader.plan(width: 640, height: 480, formats: [.ean13, .qr]).last, ScanPass(decoder: .eanModel))
        XCTAssertFalse(BarcodeReader.plan(width: 640, height: 480, formats: [.qr, .code128]).contains(ScanPass(decoder: .eanModel)))
        let image = try blurredEAN(pixelsPerModule: 4, blur: 0.8)
        XCTAssertEqual(try BarcodeReader(options: ReaderOptions(formats: [.code128], passes: [ScanPass(decoder: .eanModel)])).read(image), [],
                       "without EAN-13 the pass is skipped")
    }
}
