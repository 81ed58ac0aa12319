import EdgeImaging
@testable import EdgeScanning
import EdgeTestSupport
import XCTest

final class ModuleEstimateTests: XCTestCase {
    func testTheNarrowRunIsTheModuleSize() throws {
        for size in [2, 3, 6, 9] {
            let qr = try XCTUnwrap(Encoders.qrencode(["-s", "\(size)"], "https://example.com/edge/\(size)").first)
            XCTAssertEqual(qr.withView { ModuleEstimate.narrowRun(in: $0) }, size, "QR with \(size) px modules")
            let code128 = try Encoders.zint(["-b", "20", "--scale=\(Double(size) / 2)", "--quietzones", "-d", "PO-2026-00042"])
            XCTAssertEqual(code128.withView { ModuleEstimate.narrowRun(in: $0) }, size, "Code 128 with \(size) px modules")
        }
    }

    func testImagesWithoutRunsHaveNoEstimate() {
        XCTAssertNil(GrayImage(width: 400, height: 300, fill: 200).withView { ModuleEstimate.narrowRun(in: $0) })
        // Low contrast (a shadow, not a code) does not count.
        var faint = GrayImage(width: 400, height: 300, fill: 120)
        for y in 0..<300 { for x in stride(from: 0, to: 400, by: 4) { faint[x, y] = 150 } }
        XCTAssertNil(faint.withView { ModuleEstimate.narrowRun(in: $0) })
        XCTAssertNil(GrayImage(width: 5, height: 5, fill: 0).withView { ModuleEstimate.narrowRun(in: $0) })
    }
}

extension ModuleEstimateTests {
    /// The columns are gathered row by row into a buffer of their own: a view with a row stride
    /// wider than itself, and the same code turned a quarter (its columns become rows), give the
    /// same histogram as the packed, upright image.
    func testRunsDoNotDependOnRowStrideOrOnWhichLinesAreColumns() throws {
        let qr = try XCTUnwrap(Encoders.qrencode(["-s", "3"], "https://example.com/edge/stride").first)
        let packed = qr.withView { ModuleEstimate.runLengths(in: $0) }
        XCTAssertNotNil(packed)
        // The code inside a wider, taller canvas, read through a region view of exactly its size.
        var canvas = GrayImage(width: qr.width + 13, height: qr.height + 5, fill: 0)
        for y in 0..<qr.height { for x in 0..<qr.width { canvas[x + 7, y + 2] = qr[x, y] } }
        let strided = canvas.withView { ModuleEstimate.runLengths(in: $0.region(x: 7, y: 2, width: qr.width, height: qr.height)) }
        XCTAssertEqual(strided, packed)
        var turned = GrayImage(width: qr.height, height: qr.width)
        for y in 0..<qr.height { for x in 0..<qr.width { turned[y, x] = qr[x, y] } }
        XCTAssertEqual(turned.withView { ModuleEstimate.runLengths(in: $0) }, packed)
    }

    /// The colour changes are found 16 pixels at a time: the runs are the same wherever they
    /// fall in those blocks and whatever the line's length, against a pixel-by-pixel count.
    func testRunsMatchAPixelByPixelCountAtEveryLength() {
        var random = SplitMix64(seed: 15)
        for width in 8...200 {
            var row: [UInt8] = []
            var dark = Bool.random(using: &random)
            while row.count < width {
                for _ in 0..<Int.random(in: 1...6, using: &random) {
                    row.append(dark ? UInt8.random(in: 0...60, using: &random) : UInt8.random(in: 180...255, using: &random))
                }
                dark.toggle()
            }
            row = Array(row.prefix(width))
            var expected = [Int](repeating: 0, count: ModuleEstimate.longestCounted + 1)
            let middle = (Int(row.max() ?? 0) + Int(row.min() ?? 0) + 1) / 2
            let changes = (1..<width).filter { (Int(row[$0]) < middle) != (Int(row[$0 - 1]) < middle) }
            if changes.count >= 6 {
                for (a, b) in zip(changes, changes.dropFirst()) { expected[min(b - a, ModuleEstimate.longestCounted)] += 1 }
            }
            let counted = GrayImage(width: width, height: 1, pixels: row).withView { ModuleEstimate.runLengths(in: $0) }
            XCTAssertEqual(counted, expected.reduce(0, +) >= 20 ? expected : nil, "width \(width)")
        }
    }
}
