import EdgeImaging
@testable import EdgeScanning
import XCTest

/// QR structured append (ISO/IEC 18004 8.3.8): a message split over up to 16 symbols. zbar
/// reports a sequence with symbols missing as a ZBAR_PARTIAL container, which edge unpacks.
final class StructuredAppendTests: XCTestCase {
    private let message = "PO-2026-00042 and a longer message that does not fit into one version-1 symbol"

    private func parts() throws -> [GrayImage] {
        let images = try Encoders.qrencode(["-S", "-v", "1", "-s", "4"], message)
        XCTAssertGreaterThan(images.count, 3, "qrencode split the message")
        return images
    }

    func testEachSymbolAloneIsReportedAsAPartWithItsShareOfTheMessage() throws {
        let reader = try BarcodeReader(options: ReaderOptions(formats: [.qr]))
        var joined = ""
        for (index, image) in try parts().enumerated() {
            let results = try reader.read(image)
            XCTAssertEqual(results.count, 1, "symbol \(index + 1)")
            let result = try XCTUnwrap(results.first)
            XCTAssertTrue(result.partialSequence, "symbol \(index + 1)")
            XCTAssertEqual(result.points.count, 4)
            joined += result.text
        }
        // zbar 0.23's own component data is one byte short; edge's parts join up exactly.
        XCTAssertEqual(joined, message)
    }

    func testNeighbouringSymbolsInOneImageAreOneRunAndAGapSplitsThem() throws {
        let images = try parts()
        let reader = try BarcodeReader(options: .plainOnly(formats: [.qr]))
        let alone = try images.map { try XCTUnwrap(reader.read($0).first?.text) }

        // Symbols 1 and 2 side by side: one result with both shares, in sequence order.
        let pair = try reader.read(sideBySide([images[0], images[1]]))
        XCTAssertEqual(pair.map(\.text), [alone[0] + alone[1]])
        XCTAssertEqual(pair.first?.partialSequence, true)

        // Symbols 1 and 3: two results, one per run.
        let gap = try reader.read(sideBySide([images[0], images[2]]))
        XCTAssertEqual(Set(gap.map(\.text)), [alone[0], alone[2]])
        XCTAssertTrue(gap.allSatisfy(\.partialSequence))
    }

    func testACompleteSequenceInOneImageIsTheWholeMessage() throws {
        let reader = try BarcodeReader(options: .plainOnly(formats: [.qr]))
        let results = try reader.read(sideBySide(try parts()))
        XCTAssertEqual(results.map(\.text), [message])
        XCTAssertEqual(results.first?.partialSequence, false)
    }

    func testAnOrdinaryQRIsNotPartial() throws {
        let result = try XCTUnwrap(try BarcodeReader().read(TestImages.sample("linking-code.png")).first)
        XCTAssertFalse(result.partialSequence)
    }

    /// The images next to each other on white, top-aligned.
    private func sideBySide(_ images: [GrayImage]) -> GrayImage {
        let width = images.reduce(0) { $0 + $1.width }, height = images.map(\.height).max() ?? 0
        var out = GrayImage(width: width, height: height)
        var x0 = 0
        for image in images {
            for y in 0..<image.height {
                for x in 0..<image.width { out[x0 + x, y] = image[x, y] }
            }
            x0 += image.width
        }
        return out
    }
}
