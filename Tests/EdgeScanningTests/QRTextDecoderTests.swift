import EdgeScanning
import XCTest

final class QRTextDecoderTests: XCTestCase {
    func testUTF8IsTakenAsIs() {
        let d = QRTextDecoder.decode(Array("Grüße 日本".utf8))
        XCTAssertEqual(d, .init(text: "Grüße 日本", encoding: "utf-8"))
    }

    func testUTF8ByteOrderMarkIsDropped() {
        XCTAssertEqual(QRTextDecoder.decode([0xEF, 0xBB, 0xBF] + Array("abc".utf8)).text, "abc")
    }

    func testShiftJISKanjiIsDecoded() {
        // 日本語 in Shift_JIS.
        let d = QRTextDecoder.decode([0x93, 0xFA, 0x96, 0x7B, 0x8C, 0xEA])
        XCTAssertEqual(d, .init(text: "日本語", encoding: "shift_jis"))
    }

    func testShiftJISBackslashStaysABackslash() {
        // "\" then モバイル: Japanese encoders mean 0x5C as backslash (CP932), not a yen sign.
        let bytes: [UInt8] = [0x5C, 0x83, 0x82, 0x83, 0x6F, 0x83, 0x43, 0x83, 0x8B]
        XCTAssertEqual(QRTextDecoder.decode(bytes).text, "\\モバイル")
    }

    func testHalfWidthKatakanaRunIsShiftJIS() {
        XCTAssertEqual(QRTextDecoder.decode([0xC3, 0xDE, 0xBB, 0xDE, 0xB2, 0xDD]).encoding, "shift_jis")
    }

    func testLatin1AccentsAreNotMistakenForJapanese() {
        // "café crème" in ISO-8859-1: 0xE9 followed by ASCII could be read as a Shift_JIS pair.
        let bytes: [UInt8] = Array("caf".utf8) + [0xE9] + Array(" cr".utf8) + [0xE8] + Array("me".utf8)
        XCTAssertEqual(QRTextDecoder.decode(bytes), .init(text: "café crème", encoding: "iso-8859-1"))
    }

    func testArbitraryBinaryNeverFails() {
        let bytes = (0...255).map { UInt8($0) }
        let d = QRTextDecoder.decode(bytes)
        XCTAssertEqual(d.encoding, "iso-8859-1")
        XCTAssertEqual(d.text.unicodeScalars.count, 256)
    }

    func testEmptyPayload() {
        XCTAssertEqual(QRTextDecoder.decode([]).text, "")
    }
}
