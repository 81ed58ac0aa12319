import EdgeImaging
@testable import EdgeScanning
import XCTest

/// Reading a QR code on a bent surface by following its alignment patterns (issue #15).
final class QRGridSamplerTests: XCTestCase {
    private let text = "https://example.com/edge/bent/" + String(repeating: "A", count: 120)

    /// qrencode's version-15 code (77 modules of 3 px, 6 modules of margin), bent like paper
    /// sagging in the middle: column x moves down by `sag` sin(pi x / width) px.
    private func bent(sag: Double) throws -> GrayImage {
        let flat = try XCTUnwrap(Encoders.qrencode(["-v", "15", "-l", "M", "-s", "3", "-m", "6"], text).first)
        var pixels = [UInt8](repeating: 255, count: flat.width * flat.height)
        for x in 0..<flat.width {
            let shift = sag * sin(Double.pi * Double(x) / Double(flat.width))
            for y in 0..<flat.height {
                let source = Double(y) - shift
                let y0 = Int(source.rounded(.down)), f = source - Double(y0)
                guard y0 >= 0, y0 + 1 < flat.height else { continue }
                let a = Double(flat.pixels[y0 * flat.rowStride + x]), b = Double(flat.pixels[(y0 + 1) * flat.rowStride + x])
                pixels[y * flat.width + x] = UInt8((a + (b - a) * f).rounded())
            }
        }
        return GrayImage(width: flat.width, height: flat.height, pixels: pixels)
    }

    func testACodeSaggingFiveModulesIsReadByFollowingItsAlignmentPatterns() throws {
        let image = try bent(sag: 15)
        XCTAssertEqual(try ZbarScanner(formats: [.qr], addOns: false).scan(image).count, 0, "zbar reads it after all")
        // No warp from the finder patterns gives a grid that decodes.
        let candidates = try QRRectifier.candidates(from: image)
        XCTAssertFalse(candidates.isEmpty)
        for candidate in candidates {
            let estimated = QRRectifier.estimatedDimension(of: candidate.image)
            for dimension in [estimated - 4, estimated, estimated + 4] {
                XCTAssertNil(QRRectifier.modules(of: candidate.image, dimension: dimension)?.decode(), "\(dimension)")
            }
        }
        let reader = try BarcodeReader(options: ReaderOptions(formats: [.qr], passes: [ScanPass(region: .rectify)], timeBudget: .seconds(600)))
        let results = try reader.read(image)
        XCTAssertEqual(results.map(\.text), [text])
        // The corners are where the bent code's are: 18 px in, the sag (about 2 px that near the
        // sides) added below.
        let expected = [(18, 20), (18, 251), (249, 251), (249, 20)]
        XCTAssertEqual(results.first?.points.count, expected.count, "zip over no corners would compare nothing")
        for (point, corner) in zip(results.first?.points ?? [], expected) {
            XCTAssertLessThanOrEqual(abs(point.x - corner.0) + abs(point.y - corner.1), 6, "\(point) against \(corner)")
        }
    }

    func testTheGridNeedsTheCodesOwnSize() throws {
        let image = try bent(sag: 15)
        // The finder centres of the bent code: 3.5 modules in from its corners, moved down by the sag.
        func centre(_ mx: Double, _ my: Double) -> (x: Double, y: Double) {
            let x = (6 + mx) * 3, y = (6 + my) * 3
            return (x, y + 15 * sin(Double.pi * x / Double(image.width)))
        }
        let (corner, right, down) = (centre(3.5, 3.5), centre(73.5, 3.5), centre(3.5, 73.5))
        try image.withView { view in
            let right77 = QRGridSampler(view: view, corner: corner, right: right, down: down, dimension: 77)
            let grid = try XCTUnwrap(right77.modules(budget: .standard)?.grid)
            XCTAssertEqual(grid.decode()?.text, text)
            for wrong in [73, 81, 85] {
                let sampler = QRGridSampler(view: view, corner: corner, right: right, down: down, dimension: wrong)
                XCTAssertNil(sampler.modules(budget: .standard)?.grid.decode(), "\(wrong) modules")
            }
        }
    }
}
