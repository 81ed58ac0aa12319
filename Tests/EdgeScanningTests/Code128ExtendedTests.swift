import EdgeImaging
@testable import EdgeScanning
import Foundation
import XCTest

/// zbar drops Code 128's FNC4; `Code128Extended` re-reads the symbol along zbar's scan lines and
/// restores the ISO-8859-1 upper half. Real images only: a photo from the shared set and codes
/// from the real encoder, zint (which turns UTF-8 input into ISO-8859-1 and inserts FNC4s).
final class Code128ExtendedTests: XCTestCase {
    // MARK: - The photograph

    func testPhotoWithFNC4IsRecoveredExactly() throws {
        let dir = TestImages.photos.appendingPathComponent("code128-1")
        try XCTSkipUnless(FileManager.default.fileExists(atPath: dir.path), "no shared photos at \(dir.path)")
        let image = try ImageLoader.load(path: dir.appendingPathComponent("6.png").path)
        let expected = try String(contentsOf: dir.appendingPathComponent("6.txt"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(expected, "óóóó1234óóabózz")
        let result = try read(image)
        // zbar's misread: every ó (0xF3) loses its high bit and becomes s (0x73).
        XCTAssertEqual(zbarBytes(result), Array("ssss1234ssabszz".utf8))
        let bytes = try XCTUnwrap(extended(result, in: image))
        XCTAssertEqual(latin1(bytes), expected)
    }

    func testPhotosWithoutFNC4AreReadAlikeAndLeftAlone() throws {
        let photos = ["code128-1/1.png", "code128-1/2.png", "code128-1/3.png", "code128-1/4.png", "code128-1/5.png",
                      "code128-3/1.png", "code128-3/2.png"]
        try XCTSkipUnless(FileManager.default.fileExists(atPath: TestImages.photos.path), "no shared photos")
        var agreed = 0
        for name in photos {
            let image = try ImageLoader.load(path: TestImages.photos.appendingPathComponent(name).path)
            let result = try read(image)
            XCTAssertNil(extended(result, in: image), name)
            // The re-reader must actually read them (and agree with zbar), not just give up.
            let read = image.withView { view in
                Code128Extended.confirmedRead(zbarBytes: zbarBytes(result), points: points(result), in: view)
            }
            if let read {
                XCTAssertFalse(read.hasFNC4, name)
                agreed += 1
            }
        }
        XCTAssertEqual(agreed, photos.count, "the re-reader agreed with zbar on \(agreed) of \(photos.count)")
    }

    // MARK: - Codes from zint

    func testSingleFNC4() throws {
        try assertRecovers("Grüße 123")
        try assertRecovers("Ärger")
        try assertRecovers("prix: 12,50 ¤ (TVA incluse) ½")
    }

    func testLatchedExtendedMode() throws {
        try assertRecovers("ÀÉÎÕÜàéîõüÄÖÜäöüß")
        // Latched, with single FNC4s for the ASCII characters inside the run.
        try assertRecovers("ÀÉÎÕÜ-àéîõü_ÄÖÜ")
    }

    func testExtendedCharactersMixedWithCodeSetC() throws {
        try assertRecovers("Straße 20240615 Größe 0042")
        try assertRecovers("1234567890ñ")
        try assertRecovers("ÀÉÎÕÜ12àéîõü")
    }

    /// ISO/IEC 15417 (and the GS1 General Specifications) keep extended mode latched across code
    /// set changes. zint 2.11.1 does not: it forgets its latch in code set C and latches again
    /// afterwards, which a conforming reader takes as the end of extended mode. Its symbol for
    /// "ÀÉÎÕÜ123456àéîõü" is start B, FNC4 FNC4, ÀÉÎÕÜ, CODE C, 12 34 56, CODE B, FNC4 FNC4, àéîõü.
    /// The re-reader follows the standard (as zxing does), so the text after the digits is ASCII.
    func testLatchSurvivesCodeSetCAsTheStandardSays() throws {
        XCTAssertEqual(Code128Extended.interpret([104, 100, 100, 33, 99, 12, 100, 33])?.bytes, [0xC1, 0x31, 0x32, 0xC1])
        let image = try zint(["-b", "20", "-d", "ÀÉÎÕÜ123456àéîõü"])
        let result = try read(image)
        XCTAssertEqual(extended(result, in: image).map(latin1), "ÀÉÎÕÜ123456`inu|")
    }

    func testPlainASCIICodeGivesNil() throws {
        let image = try zint(["-b", "20", "-d", "PO-2026-00042"])
        let result = try read(image)
        XCTAssertEqual(result.bytes, Array("PO-2026-00042".utf8))
        XCTAssertNil(extended(result, in: image))
        // It is nil because there is no FNC4, not because the re-read failed.
        let read = image.withView { Code128Extended.confirmedRead(zbarBytes: result.bytes, points: points(result), in: $0) }
        XCTAssertEqual(read?.hasFNC4, false)
    }

    func testFNC1IsModelledAsZbarRendersIt() throws {
        // GS1-128: FNC1 first (dropped by zbar), then FNC1 as the separator after the
        // variable-length AI 10 (zbar emits GS there).
        let image = try zint(["-b", "16", "-d", "[10]ABC[21]123"])
        let result = try read(image)
        XCTAssertEqual(zbarBytes(result), Array("10ABC\u{1D}21123".utf8))
        let read = image.withView { Code128Extended.confirmedRead(zbarBytes: zbarBytes(result), points: points(result), in: $0) }
        XCTAssertEqual(read?.bytes, Array("10ABC\u{1D}21123".utf8))
        XCTAssertEqual(read?.hasFNC4, false)
        XCTAssertNil(extended(result, in: image))
    }

    func testVerticalScanLines() throws {
        let (image, _) = try zint(["-b", "20", "-d", "Grüße 123"]).withView { try $0.rotated(degrees: 90) }
        let result = try read(image)
        let xs = result.points.map(\.x), ys = result.points.map(\.y)
        let xSpread = (xs.max() ?? 0) - (xs.min() ?? 0), ySpread = (ys.max() ?? 0) - (ys.min() ?? 0)
        XCTAssertGreaterThan(ySpread, xSpread, "zbar read the turned code on vertical lines")
        XCTAssertEqual(extended(result, in: image).map(latin1), "Grüße 123")
    }

    func testRightToLeft() throws {
        for text in ["Grüße 123", "Straße 20240615 ÀÉÎÕÜàéîõü"] {
            let image = mirrored(try zint(["-b", "20", "-d", text]))
            let result = try read(image)
            XCTAssertEqual(extended(result, in: image).map(latin1), text)
            let (turned, _) = try image.withView { try $0.rotated(degrees: 90) }
            let turnedResult = try read(turned)
            XCTAssertEqual(extended(turnedResult, in: turned).map(latin1), text, "bottom to top")
        }
    }

    func testPaddedRowsAndQuietZone() throws {
        let source = try zint(["-b", "20", "--quietzones", "--scale=3", "-d", "Größe 42"])
        // The same pixels with 13 unused bytes after each row.
        let stride = source.width + 13
        var pixels = [UInt8](repeating: 0, count: stride * source.height)
        for y in 0..<source.height {
            for x in 0..<source.width { pixels[y * stride + x] = source[x, y] }
        }
        let padded = GrayImage(width: source.width, height: source.height, rowStride: stride, pixels: pixels)
        let result = try read(padded)
        XCTAssertEqual(extended(result, in: padded).map(latin1), "Größe 42")
    }

    func testBlurredCode() throws {
        let sharp = try zint(["-b", "20", "--quietzones", "--scale=2", "-d", "Grüße aus Köln 2024"])
        let image = try sharp.withView { try $0.blurred() }.withView { try $0.blurred() }
        let result = try read(image)
        XCTAssertEqual(extended(result, in: image).map(latin1), "Grüße aus Köln 2024")
    }

    // MARK: - Safety

    func testConfirmationRuleRejectsADifferentZbarRead() throws {
        let image = try zint(["-b", "20", "-d", "Grüße 123"])
        let result = try read(image)
        var wrong = zbarBytes(result)
        XCTAssertEqual(wrong, Array("Gr|_e 123".utf8))
        wrong[wrong.count - 1] = UInt8(ascii: "4")
        XCTAssertNil(image.withView { Code128Extended.extendedBytes(zbarBytes: wrong, points: points(result), in: $0) })
        XCTAssertNil(image.withView { Code128Extended.extendedBytes(zbarBytes: Array(wrong.dropLast()), points: points(result), in: $0) })
        // Bytes zbar never emits (high bit set) are not confirmed either.
        XCTAssertNil(image.withView { Code128Extended.extendedBytes(zbarBytes: Array("Grüße 123".unicodeScalars.map { UInt8($0.value) }), points: points(result), in: $0) })
    }

    func testHostileInputGivesNil() throws {
        let image = try zint(["-b", "20", "-d", "Grüße 123"])
        let result = try read(image)
        let good = points(result)
        let bytes = zbarBytes(result)
        let cases: [[(x: Int, y: Int)]] = [
            [],
            [(-1, -1)],
            [(image.width, image.height), (Int.max, Int.min), (Int.min, Int.max)],
            good.map { ($0.x + 100_000, $0.y) },
            good.map { ($0.x, -$0.y - 1) },
        ]
        for p in cases {
            XCTAssertNil(image.withView { Code128Extended.extendedBytes(zbarBytes: bytes, points: p, in: $0) }, "\(p)")
        }
        // Lines that miss the code: in the white margin around it.
        let framed = try image.withView { try $0.padded(by: 30) }
        for p in [[(x: 0, y: 0)], [(x: 5, y: 10), (x: framed.width - 5, y: 10)], [(x: 10, y: 5), (x: 10, y: framed.height - 5)]] {
            XCTAssertNil(framed.withView { Code128Extended.extendedBytes(zbarBytes: bytes, points: p, in: $0) }, "\(p)")
        }
        for (w, h) in [(0, 0), (1, 1), (2, 1), (1, 40)] {
            let tiny = GrayImage(width: w, height: h, fill: 0)
            XCTAssertNil(tiny.withView { Code128Extended.extendedBytes(zbarBytes: bytes, points: [(0, 0), (w, h), (-5, 3)], in: $0) })
        }
        XCTAssertNil(image.withView { Code128Extended.extendedBytes(zbarBytes: [], points: good, in: $0) })
        // Random noise, with points spread like a real read's.
        var noise = GrayImage(width: 400, height: 120)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for i in 0..<noise.pixels.count {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            noise.pixels[i] = UInt8(truncatingIfNeeded: state >> 56)
        }
        let spread = (0..<40).map { (x: $0 % 2 == 0 ? 20 : 380, y: 30 + $0) }
        XCTAssertNil(noise.withView { Code128Extended.extendedBytes(zbarBytes: bytes, points: spread, in: $0) })
        XCTAssertNil(noise.withView { Code128Extended.extendedBytes(zbarBytes: bytes, points: spread.map { ($0.y, $0.x) }, in: $0) })
    }

    // MARK: - Interpretation

    func testInterpretationOfFNC4States() {
        // Start B, FNC4 'A' -> 0xC1; FNC4 FNC4 latches; FNC4 inside the latch gives one plain character.
        XCTAssertEqual(Code128Extended.interpret([104, 100, 33])?.bytes, [0xC1])
        XCTAssertEqual(Code128Extended.interpret([104, 100, 100, 33, 34, 100, 35, 36, 100, 100, 37])?.bytes,
                       [0xC1, 0xC2, 0x43, 0xC4, 0x45])
        // Set A: FNC4 is 101; control characters extend to 0x80-0x9F. Set C digits are never extended.
        XCTAssertEqual(Code128Extended.interpret([103, 101, 65, 99, 12, 100, 100, 33])?.bytes, [0x81, 0x31, 0x32, 0xC1])
        // SHIFT applies to one character, and an FNC4 before it still counts.
        XCTAssertEqual(Code128Extended.interpret([104, 100, 98, 64, 33])?.bytes, [0x80, 0x41])
        XCTAssertEqual(Code128Extended.interpret([104, 33])?.hasFNC4, false)
        XCTAssertNil(Code128Extended.interpret([104, 103]))
        XCTAssertNil(Code128Extended.interpret([42, 33]))
        XCTAssertNil(Code128Extended.interpret([]))
    }

    // MARK: - Helpers

    /// The code BarcodeReader (zbar alone, one plain pass) reads in `image`.
    private func read(_ image: GrayImage) throws -> ScanResult {
        let results = try BarcodeReader(options: .plainOnly(formats: [.code128])).read(image)
        XCTAssertEqual(results.count, 1)
        return try XCTUnwrap(results.first)
    }

    /// zbar's own bytes: masking makes this hold whether or not the reader already applies FNC4.
    private func zbarBytes(_ result: ScanResult) -> [UInt8] {
        result.bytes.map { $0 & 0x7F }
    }

    private func points(_ result: ScanResult) -> [(x: Int, y: Int)] {
        result.points.map { (x: $0.x, y: $0.y) }
    }

    private func extended(_ result: ScanResult, in image: GrayImage) -> [UInt8]? {
        image.withView { Code128Extended.extendedBytes(zbarBytes: zbarBytes(result), points: points(result), in: $0) }
    }

    private func latin1(_ bytes: [UInt8]) -> String {
        String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }

    private func assertRecovers(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let image = try zint(["-b", "20", "-d", text])
        let result = try read(image)
        XCTAssertEqual(zbarBytes(result), text.unicodeScalars.map { UInt8($0.value & 0x7F) }, "zbar's read", file: file, line: line)
        XCTAssertEqual(extended(result, in: image).map(latin1), text, file: file, line: line)
    }

    private func zint(_ arguments: [String]) throws -> GrayImage { try Encoders.zint(arguments) }

    /// Left-right mirror image: the code then reads right to left.
    private func mirrored(_ image: GrayImage) -> GrayImage {
        var out = GrayImage(width: image.width, height: image.height)
        for y in 0..<image.height {
            for x in 0..<image.width { out[image.width - 1 - x, y] = image[x, y] }
        }
        return out
    }
}
