import EdgeImaging
import EdgeTestSupport
@testable import EdgeScanning
import XCTest

/// edge's own QR decoding from a module grid (issue #15 item 3): Reed-Solomon, every version and
/// level against qrencode (an independent encoder), and the segment modes zbar lacks.
final class QRModuleDecoderTests: XCTestCase {
    /// The modules of a qrencode image drawn at one pixel per module without margin.
    private func grid(_ image: GrayImage) throws -> QRModuleDecoder {
        XCTAssertEqual(image.width, image.height)
        var modules: [Bool] = []
        for y in 0..<image.height { for x in 0..<image.width { modules.append(image.pixels[y * image.rowStride + x] < 128) } }
        return try XCTUnwrap(QRModuleDecoder(dimension: image.width, modules: modules), "\(image.width) modules")
    }

    func testReedSolomonCorrectsUpToHalfItsCodewords() {
        var generator = SplitMix64(seed: 15)
        for ec in [7, 10, 17, 30] {
            let data = (0..<(40 - ec / 2)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let clean = data + QRReedSolomon.ecCodewords(of: data, ecCount: ec)
            XCTAssertTrue(QRReedSolomon.syndromes(of: clean, count: ec).allSatisfy { $0 == 0 })
            for errors in 0...(ec / 2) {
                var block = clean
                for position in Array(0..<block.count).shuffled(using: &generator).prefix(errors) {
                    block[position] ^= UInt8.random(in: 1...255, using: &generator)
                }
                XCTAssertTrue(QRReedSolomon.correct(&block, ecCount: ec, maxErrors: ec / 2), "ec \(ec), \(errors) errors")
                XCTAssertEqual(block, clean, "ec \(ec), \(errors) errors")
            }
            // A limit below the errors present refuses and leaves the block as it was.
            var block = clean
            block[0] ^= 1; block[1] ^= 1; block[2] ^= 1
            let damaged = block
            XCTAssertFalse(QRReedSolomon.correct(&block, ecCount: ec, maxErrors: 2))
            XCTAssertEqual(block, damaged)
        }
    }

    func testEveryVersionAndLevelFromQrencodeDecodes() throws {
        for version in 1...40 {
            for level in ["L", "M", "Q", "H"] {
                let text = "edge \(version)-\(level) é"
                let image = try XCTUnwrap(try Encoders.qrencode(["-s", "1", "-m", "0", "-8", "-v", "\(version)", "-l", level], text).first)
                let decoder = try grid(image)
                // qrencode takes the next version when the text does not fit (1-H holds 7 bytes).
                XCTAssertEqual(decoder.version, max(version, level == "H" ? 2 : 1))
                let content = decoder.decode()
                XCTAssertEqual(content?.text, text, "version \(version) level \(level)")
                XCTAssertEqual(content?.encoding, "utf-8")
            }
        }
    }

    func testDamagedModulesAreCorrectedAndTooManyRefused() throws {
        let text = "PO-2026-00043 receiving dock"
        let image = try XCTUnwrap(try Encoders.qrencode(["-s", "1", "-m", "0", "-v", "5", "-l", "H"], text).first)
        let clean = try grid(image)
        var modules = clean.modules
        // A smudge: a 4x4 patch in the data region flipped (at most 4 codewords of 4 blocks).
        for y in 20..<24 { for x in 24..<28 { modules[y * clean.dimension + x].toggle() } }
        XCTAssertEqual(QRModuleDecoder(dimension: clean.dimension, modules: modules)?.decode()?.text, text)
        // Half the code inverted is far beyond what Reed-Solomon can repair: no text at all.
        for i in 0..<(modules.count / 2) { modules[i].toggle() }
        XCTAssertNil(QRModuleDecoder(dimension: clean.dimension, modules: modules)?.decode())
    }

    func testNumericAndAlphanumericSegments() throws {
        for (arguments, text, encoding) in [([String](), "0123456789012", "utf-8"), (["-i"], "HELLO WORLD $%*+-./:", "utf-8")] {
            let image = try XCTUnwrap(try Encoders.qrencode(["-s", "1", "-m", "0"] + arguments, text).first)
            let content = try grid(image).decode()
            XCTAssertEqual(content?.text, text)
            XCTAssertEqual(content?.encoding, encoding, text)
        }
    }

    /// A hand-assembled bit stream (the encoder side is written out here, from the standard).
    private func stream(_ fields: [(value: Int, bits: Int)]) -> [UInt8] {
        var bits: [Bool] = []
        for f in fields { for i in stride(from: f.bits - 1, through: 0, by: -1) { bits.append(f.value >> i & 1 == 1) } }
        while bits.count % 8 != 0 { bits.append(false) }
        return stride(from: 0, to: bits.count, by: 8).map { i in bits[i..<i + 8].reduce(UInt8(0)) { $0 << 1 | ($1 ? 1 : 0) } }
    }

    func testKanjiHanziECIAndStructuredAppendSegments() {
        // Kanji 日 (Shift_JIS 93FA): 93FA - 8140 = 12BA -> 0x12 * 0xC0 + 0xBA.
        let kanji = stream([(8, 4), (1, 8), (0x12 * 0xC0 + 0xBA, 13), (0, 4)])
        XCTAssertEqual(QRSegments.parse(kanji, version: 1), .init(bytes: [0x93, 0xFA], text: "日", encoding: "shift_jis", structuredAppend: false))
        // Hanzi 阿 (GB 2312 B0A2): B0A2 - A6A1 = 0A01 -> 0x0A * 0x60 + 0x01.
        let hanzi = stream([(13, 4), (1, 4), (1, 8), (0x0A * 0x60 + 0x01, 13), (0, 4)])
        XCTAssertEqual(QRSegments.parse(hanzi, version: 1), .init(bytes: [0xB0, 0xA2], text: "阿", encoding: "gb2312", structuredAppend: false))
        // ECI 26 (UTF-8) then bytes, and ECI 3 (ISO-8859-1) then bytes: each decoded in its set.
        let eci = stream([(7, 4), (26, 8), (4, 4), (2, 8), (0xC3, 8), (0xA9, 8), (7, 4), (3, 8), (4, 4), (1, 8), (0xE9, 8), (0, 4)])
        XCTAssertEqual(QRSegments.parse(eci, version: 1)?.text, "éé")
        XCTAssertEqual(QRSegments.parse(eci, version: 1)?.encoding, "mixed")
        // Structured append header, then alphanumeric "AB".
        let share = stream([(3, 4), (0x1, 4), (0x2, 4), (0x55, 8), (2, 4), (2, 9), (10 * 45 + 11, 11), (0, 4)])
        XCTAssertEqual(QRSegments.parse(share, version: 1), .init(bytes: Array("AB".utf8), text: "AB", encoding: "utf-8", structuredAppend: true))
        // Malformed: an unknown mode, a count longer than the data, an unknown ECI.
        XCTAssertNil(QRSegments.parse(stream([(6, 4), (0, 12)]), version: 1))
        XCTAssertNil(QRSegments.parse(stream([(4, 4), (200, 8), (0x41, 8)]), version: 1))
        XCTAssertNil(QRSegments.parse(stream([(7, 4), (99, 8), (4, 4), (1, 8), (0x41, 8)]), version: 1))
    }

    /// A version-1 code drawn here from the standard (qrencode has no Hanzi mode): finder and
    /// timing patterns, format information for level L and mask `mask`, and `data` (19 data
    /// codewords) with its Reed-Solomon codewords in placement order. Four pixels a module, with
    /// a four-module quiet zone.
    private func version1Code(data: [UInt8], mask: Int) throws -> GrayImage {
        let n = 21
        let blank = try XCTUnwrap(QRModuleDecoder(dimension: n, modules: [Bool](repeating: false, count: n * n)))
        var modules = [Bool](repeating: false, count: n * n)
        for (ox, oy) in [(0, 0), (n - 7, 0), (0, n - 7)] {
            for y in 0..<7 { for x in 0..<7 {
                let ring = max(abs(x - 3), abs(y - 3))
                modules[(oy + y) * n + ox + x] = ring != 2
            } }
        }
        for i in 8..<(n - 8) { modules[6 * n + i] = i % 2 == 0; modules[i * n + 6] = i % 2 == 0 }
        modules[(n - 8) * n + 8] = true
        let format = QRModuleDecoder.bch(QRModuleDecoder.Level.l.rawValue << 3 | mask, bits: 10, generator: 0x537) ^ 0x5412
        var bit = 14
        func put(_ x: Int, _ y: Int, _ b: Int) { modules[y * n + x] = format >> b & 1 == 1 }
        for x in 0...5 { put(x, 8, bit); bit -= 1 }
        put(7, 8, bit); bit -= 1; put(8, 8, bit); bit -= 1; put(8, 7, bit); bit -= 1
        for y in stride(from: 5, through: 0, by: -1) { put(8, y, bit); bit -= 1 }
        bit = 14
        for y in stride(from: n - 1, through: n - 7, by: -1) { put(8, y, bit); bit -= 1 }
        for x in (n - 8)..<n { put(x, 8, bit); bit -= 1 }
        let codewords = data + QRReedSolomon.ecCodewords(of: data, ecCount: 7)
        let bits: [Bool] = codewords.flatMap { c in (0..<8).map { c >> (7 - $0) & 1 == 1 } }
        let function = blank.functionModules()
        var k = 0, upward = true, right = n - 1
        while right > 0 {
            if right == 6 { right -= 1 }
            for step in 0..<n {
                let row = upward ? n - 1 - step : step
                for column in [right, right - 1] where !function[row * n + column] {
                    let value = k < bits.count ? bits[k] : false
                    modules[row * n + column] = value != QRModuleDecoder.masked(mask, row, column)
                    k += 1
                }
            }
            upward.toggle()
            right -= 2
        }
        let side = (n + 8) * 4
        var image = GrayImage(width: side, height: side)
        for y in 0..<side { for x in 0..<side {
            let mx = x / 4 - 4, my = y / 4 - 4
            let dark = mx >= 0 && my >= 0 && mx < n && my < n && modules[my * n + mx]
            image.pixels[y * side + x] = dark ? 0 : 255
        } }
        return image
    }

    /// zbar has no Hanzi mode: it locates such a code and gives up. edge's decoder reads the
    /// modules, from the photo plan's first pass (`qr-direct`) and, for a code that pass cannot
    /// sample, from the rectify pass (the development photo qrcode-2/33.png is one).
    func testAHanziCodeIsReadThroughTheReader() throws {
        // 阿 (B0A2) and 中 (D6D0): D6D0 - A6A1 = 302F -> 0x30 * 0x60 + 0x2F.
        var data = stream([(13, 4), (1, 4), (2, 8), (0x0A * 0x60 + 0x01, 13), (0x30 * 0x60 + 0x2F, 13), (0, 4)])
        var pad: UInt8 = 0xEC
        while data.count < 19 { data.append(pad); pad = pad == 0xEC ? 0x11 : 0xEC }
        for mask in [0, 5] {
            let image = try version1Code(data: data, mask: mask)
            let results = try BarcodeReader(options: ReaderOptions(formats: [.qr])).read(image)
            XCTAssertEqual(results.map(\.text), ["阿中"], "mask \(mask)")
            XCTAssertEqual(results.first?.encoding, "gb2312")
            XCTAssertEqual(results.first?.bytes, [0xB0, 0xA2, 0xD6, 0xD0])
            XCTAssertEqual(results.first?.pass, ScanPass(decoder: .qrDirect))
            let rectified = try BarcodeReader(options: ReaderOptions(formats: [.qr], passes: [ScanPass(region: .rectify)])).read(image)
            XCTAssertEqual(rectified.map(\.text), ["阿中"], "mask \(mask)")
        }
    }
}
