import EdgeImaging
@testable import EdgeScanning
import XCTest

/// What SCN-3 and SCN-5 name but no other test held (issue #15 item 5), each on a symbol drawn
/// by zint: UPC-A as EAN-13, the EAN-2 and EAN-5 add-ons, every QR segment mode (numeric, alphanumeric, byte, Kanji) and ECI
/// to UTF-8, several distinct codes in one image reported once each, and an inverted 1D code.
final class SymbologyGapTests: XCTestCase {
    /// `image` on a white margin: zint's quiet zone after an add-on is the minimum, which zbar
    /// reads only sometimes; labels have more.
    static func padded(_ image: GrayImage, by margin: Int) -> GrayImage {
        var canvas = GrayImage(width: image.width + 2 * margin, height: image.height + 2 * margin)
        for y in 0..<image.height { for x in 0..<image.width { canvas.pixels[(margin + y) * canvas.rowStride + margin + x] = image[x, y] } }
        return canvas
    }

    private func read(_ image: GrayImage, formats: Set<BarcodeFormat> = Set(BarcodeFormat.allCases)) throws -> [ScanResult] {
        try BarcodeReader(options: ReaderOptions(formats: formats)).read(image)
    }

    func testUPCAIsReadAsEAN13WithItsLeadingZero() throws {
        let results = try read(try Encoders.zint(["-b", "34", "--quietzones", "-d", "03600029145"]))
        XCTAssertEqual(results.map(\.format), [.ean13])
        XCTAssertEqual(results.first?.text, "0036000291452")
    }

    func testEveryQRSegmentModeAndECIComeOutAsUTF8Text() throws {
        let cases: [(arguments: [String], text: String, encoding: String)] = [
            (["-d", "0123456789012345"], "0123456789012345", "utf-8"),          // numeric mode
            (["-d", "HELLO-WORLD 123"], "HELLO-WORLD 123", "utf-8"),            // alphanumeric mode
            (["-d", "hello, world"], "hello, world", "utf-8"),                  // byte mode
            (["-d", "漢字かな"], "漢字かな", "shift_jis"),                          // Kanji mode (Shift JIS, no ECI)
            (["--eci=26", "-d", "Grüße €"], "Grüße €", "utf-8"),                // ECI 26: UTF-8
            (["--eci=3", "-d", "Grüße"], "Grüße", "iso-8859-1"),                // ECI 3: ISO-8859-1, decoded as the ECI names
        ]
        for (arguments, text, encoding) in cases {
            let image = try Encoders.zint(["-b", "58", "--quietzones", "--scale=4"] + arguments)
            let result = try XCTUnwrap(try read(image, formats: [.qr]).first, "\(arguments)")
            XCTAssertEqual(result.text, text, "\(arguments)")
            XCTAssertEqual(result.encoding, encoding, "\(arguments)")
        }
        // A QR-only reader reads these with edge's own decoder (`qr-direct`), which keeps the
        // symbol's bytes and names the set its ECI designates; zbar hands ECI 3 over converted to
        // UTF-8. The text is the same either way.
        let latin1 = try Encoders.zint(["-b", "58", "--quietzones", "--scale=4", "--eci=3", "-d", "Grüße"])
        let zbar = try XCTUnwrap(try BarcodeReader(options: ReaderOptions(formats: [.qr, .code128])).read(latin1).first)
        XCTAssertEqual([zbar.text, zbar.encoding], ["Grüße", "utf-8"])
        XCTAssertEqual(zbar.bytes, Array("Grüße".utf8))
        let direct = try XCTUnwrap(try read(latin1, formats: [.qr]).first)
        XCTAssertEqual(direct.pass, ScanPass(decoder: .qrDirect))
        XCTAssertEqual(direct.bytes, [0x47, 0x72, 0xFC, 0xDF, 0x65])
    }

    func testSeveralDistinctCodesInOneImageAreEachReportedOnce() throws {
        let parts = [try Encoders.zint(["-b", "20", "--quietzones", "-d", "PO-2026-00042"]),
                     try Encoders.zint(["-b", "58", "--quietzones", "--scale=4", "-d", "VENDOR-7"]),
                     try Encoders.zint(["-b", "13", "--quietzones", "-d", "400638133393"])]
        let gap = 40
        let width = parts.map(\.width).reduce(0, +) + gap * (parts.count + 1)
        let height = (parts.map(\.height).max() ?? 0) + 2 * gap
        var canvas = GrayImage(width: width, height: height)
        var x0 = gap
        for part in parts {
            for y in 0..<part.height { for x in 0..<part.width { canvas.pixels[(gap + y) * canvas.rowStride + x0 + x] = part[x, y] } }
            x0 += part.width + gap
        }
        let results = try read(canvas)
        XCTAssertEqual(results.map(\.text).sorted(), ["4006381333931", "PO-2026-00042", "VENDOR-7"])
    }

    func testAnInvertedCode128IsReadByTheInvertPass() throws {
        var image = try Encoders.zint(["-b", "20", "--quietzones", "-d", "PO-2026-00042"])
        for i in image.pixels.indices { image.pixels[i] = 255 - image.pixels[i] }
        let results = try read(image, formats: [.code128])
        XCTAssertEqual(results.map(\.text), ["PO-2026-00042"])
        XCTAssertEqual(results.first?.pass.description.contains("invert"), true, "\(results.first?.pass.description ?? "")")
    }

    /// Both add-ons. zbar places an EAN-5's points at its far end, 108 px from this EAN-13's
    /// 190: beyond the half-length bound the pairing had before, which dropped it.
    func testEANAddOnsComeWithTheirEAN13WhenEnabled() throws {
        for (data, addOn) in [("4006381333931+12", "12"), ("4006381333931+54495", "54495"), ("5901234123457+00", "00")] {
            let image = Self.padded(try Encoders.zint(["-b", "13", "--quietzones", "-d", data]), by: 40)
            var options = ReaderOptions(formats: [.ean13])
            options.eanAddOns = true
            let results = try BarcodeReader(options: options).read(image)
            XCTAssertEqual(results.map(\.text), [String(data.prefix(13))], data)
            XCTAssertEqual(results.first?.addOn, addOn, data)
            // Off (the default): the EAN-13 alone, no add-on and no stray symbol.
            let plain = try read(image, formats: [.ean13])
            XCTAssertEqual(plain.map(\.text), [String(data.prefix(13))])
            XCTAssertNil(plain.first?.addOn)
        }
    }
}
