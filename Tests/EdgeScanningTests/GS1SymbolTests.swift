import EdgeImaging
@testable import EdgeScanning
import XCTest

/// SCN-13 at the scanner: what a GS1-128 and a GS1 QR code drawn by zint come out as through
/// the real zbar path. zbar marks both GS1 (its ZBAR_MOD_GS1 modifier: FNC1 in first position,
/// symbology identifiers ]C1 and ]Q3), drops that first FNC1 and hands every later one over as
/// GS (0x1D); in a GS1 QR's alphanumeric segments it turns "%" into GS and "%%" into "%". The
/// same code without FNC1 (plain Code 128, plain QR) is not marked.
final class GS1SymbolTests: XCTestCase {
    private static let gs = "\u{1D}"

    private func read(_ image: GrayImage, formats: Set<BarcodeFormat> = BarcodeFormat.standard) throws -> [ScanResult] {
        try BarcodeReader(options: ReaderOptions(formats: formats)).read(image)
    }

    private func only(_ image: GrayImage, file: StaticString = #filePath, line: UInt = #line) throws -> ScanResult {
        let results = try read(image)
        XCTAssertEqual(results.count, 1, "\(results.map(\.text))", file: file, line: line)
        return try XCTUnwrap(results.first, file: file, line: line)
    }

    /// Predefined-length AIs first: no separator at all; the leading FNC1 is gone.
    func testGS1128WithPredefinedLengthAIsFirst() throws {
        let result = try only(try Encoders.zint(["-b", "16", "--quietzones", "-d", "[01]09506000134352[17]201225[10]ABC123"]))
        XCTAssertEqual(result.format, .code128)
        XCTAssertTrue(result.gs1)
        XCTAssertEqual(result.text, "0109506000134352" + "17201225" + "10ABC123")
        XCTAssertEqual(result.bytes, Array(result.text.utf8))
        XCTAssertEqual(result.encoding, "ascii")
    }

    /// A variable-length AI before another: FNC1 between them, handed over as GS.
    func testGS1128SeparatorComesAsGS() throws {
        let result = try only(try Encoders.zint(["-b", "16", "--quietzones", "-d", "[01]09506000134352[10]ABC123[21]XYZ[17]201225"]))
        XCTAssertTrue(result.gs1)
        XCTAssertEqual(result.text, "0109506000134352" + "10ABC123" + Self.gs + "21XYZ" + Self.gs + "17201225")
    }

    /// A logistic label's SSCC, content GTIN and count (all numeric: code set C throughout).
    func testGS1128LogisticLabel() throws {
        let result = try only(try Encoders.zint(["-b", "16", "--quietzones", "-d", "[00]006141411234567890[02]09506000134352[37]20"]))
        XCTAssertTrue(result.gs1)
        XCTAssertEqual(result.text, "00006141411234567890" + "0209506000134352" + "3720")
    }

    /// GS1 QR in numeric, alphanumeric and byte segments: GS separators, a literal "%" kept
    /// ("%%" in the symbol), lower case (byte mode).
    func testGS1QRInEverySegmentMode() throws {
        let cases: [(data: String, text: String)] = [
            ("[01]09506000134352[17]201225", "0109506000134352" + "17201225"),
            ("[01]09506000134352[10]ABC123[17]201225", "0109506000134352" + "10ABC123" + Self.gs + "17201225"),
            ("[01]09506000134352[10]ABC%12[21]XYZ[17]201225", "0109506000134352" + "10ABC%12" + Self.gs + "21XYZ" + Self.gs + "17201225"),
            ("[01]09506000134352[10]abc-1[21]x/y", "0109506000134352" + "10abc-1" + Self.gs + "21x/y"),
        ]
        for (data, text) in cases {
            let result = try only(try Encoders.zint(["-b", "58", "--gs1", "--quietzones", "--scale=4", "-d", data]))
            XCTAssertEqual(result.format, .qr, data)
            XCTAssertTrue(result.gs1, data)
            XCTAssertEqual(result.text, text, data)
        }
    }

    /// The same characters without FNC1 are not GS1 data.
    func testPlainCodesAreNotMarked() throws {
        let code128 = try only(try Encoders.zint(["-b", "20", "--quietzones", "-d", "01095060001343521720122510ABC123"]))
        XCTAssertEqual(code128.text, "01095060001343521720122510ABC123")
        XCTAssertFalse(code128.gs1)
        let qr = try only(try Encoders.zint(["-b", "58", "--quietzones", "--scale=4", "-d", "01095060001343521720122510ABC123"]))
        XCTAssertFalse(qr.gs1)
    }

    /// edge's own QR decoder (for codes zbar cannot finish) reads FNC1 in first position as GS1
    /// too, with the same text; FNC1 in second position (AIM's industry mode) is not GS1.
    func testEdgesQRDecoderMarksGS1() throws {
        let image = try Encoders.zint(["-b", "58", "--gs1", "--scale=0.5", "-d", "[01]09506000134352[10]ABC123[17]201225"])
        XCTAssertEqual(image.width, image.height)
        var modules: [Bool] = []
        for y in 0..<image.height { for x in 0..<image.width { modules.append(image.pixels[y * image.rowStride + x] < 128) } }
        let content = try XCTUnwrap(QRModuleDecoder(dimension: image.width, modules: modules)?.decode())
        XCTAssertTrue(content.gs1)
        XCTAssertEqual(content.text, "0109506000134352" + "10ABC123" + Self.gs + "17201225")
        // Mode 9 (FNC1 second position, application indicator "A" + 100), then "A%B" alphanumeric.
        let second = Self.stream([(9, 4), (165, 8), (2, 4), (3, 9), (10 * 45 + 38, 11), (11, 6), (0, 4)])
        let aim = try XCTUnwrap(QRSegments.parse(second, version: 1))
        XCTAssertFalse(aim.gs1)
        XCTAssertEqual(aim.text, "A" + Self.gs + "B")
    }

    private static func stream(_ fields: [(value: Int, bits: Int)]) -> [UInt8] {
        var bits: [Bool] = []
        for f in fields { for i in stride(from: f.bits - 1, through: 0, by: -1) { bits.append(f.value >> i & 1 == 1) } }
        while bits.count % 8 != 0 { bits.append(false) }
        return stride(from: 0, to: bits.count, by: 8).map { i in bits[i..<i + 8].reduce(UInt8(0)) { $0 << 1 | ($1 ? 1 : 0) } }
    }
}
