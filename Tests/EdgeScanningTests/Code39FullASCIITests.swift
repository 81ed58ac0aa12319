import EdgeImaging
@testable import EdgeScanning
import XCTest

/// Code 39 Full ASCII (issue #15 item 1): the table, the `auto` rule, and real symbols drawn by
/// zint's Extended Code 39 read through the reader with each policy.
final class Code39FullASCIITests: XCTestCase {
    /// The standard's table, written out independently of the decoder: ASCII value → pair.
    static func encode(_ value: UInt8) -> String {
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        switch value {
        case 0: return "%U"
        case 1...26: return "$" + String(letters[Int(value) - 1])
        case 27...31: return "%" + String(letters[Int(value) - 27])
        case 32, 45, 46, 48...57, 65...90: return String(UnicodeScalar(value))
        case 33...44: return "/" + String(letters[Int(value) - 33])
        case 47: return "/O"
        case 58: return "/Z"
        case 59...63: return "%" + String(letters[Int(value) - 59 + 5])
        case 64: return "%V"
        case 91...95: return "%" + String(letters[Int(value) - 91 + 10])
        case 96: return "%W"
        case 97...122: return "+" + String(letters[Int(value) - 97])
        default: return "%" + String(letters[Int(value) - 123 + 15])
        }
    }

    func testEveryASCIICharacterDecodesFromItsPair() {
        for value in UInt8(0)...127 {
            let raw = Array(Self.encode(value).utf8)
            XCTAssertEqual(Code39FullASCII.decode(raw), [value], "ASCII \(value) from \(Self.encode(value))")
        }
        // The alternates for DEL.
        for alternate in ["%X", "%Y", "%Z"] { XCTAssertEqual(Code39FullASCII.decode(Array(alternate.utf8)), [0x7F]) }
        XCTAssertEqual(Code39FullASCII.decode(Array("12+A+B".utf8)).map { String(decoding: $0, as: UTF8.self) }, "12ab")
    }

    func testAShiftThatStartsNoValidPairLeavesTheReadRaw() {
        for raw in ["PO-1/2", "AB+", "/P", "%1", "$$", "+-"] {
            XCTAssertNil(Code39FullASCII.decode(Array(raw.utf8)), raw)
        }
        XCTAssertFalse(Code39FullASCII.hasShift(Array("PO-2026-00043".utf8)))
    }

    private func read(_ image: GrayImage, _ policy: Code39FullASCII.Policy) throws -> [ScanResult] {
        var options = ReaderOptions(formats: [.code39])
        options.code39FullASCII = policy
        return try BarcodeReader(options: options).read(image)
    }

    func testExtendedCode39FromZintReadsAsItsText() throws {
        // zint -b 9 is Extended Code 39: it prints `12ab` as the symbol characters `12+A+B`.
        let image = try Encoders.zint(["-b", "9", "--quietzones", "-d", "12ab"])
        let auto = try XCTUnwrap(try read(image, .auto).first)
        XCTAssertEqual(auto.text, "12ab")
        XCTAssertEqual(String(decoding: auto.bytes, as: UTF8.self), "12+A+B", "the symbol characters are kept")
        XCTAssertEqual(try read(image, .raw).first?.text, "12+A+B")
        XCTAssertEqual(try read(image, .always).first?.text, "12ab")
    }

    func testARawLabelWithAnInvalidPairStaysRawInAutoAndIsDroppedInFullASCII() throws {
        // Plain Code 39 (zint -b 8) whose `/` starts no valid pair.
        let image = try Encoders.zint(["-b", "8", "--quietzones", "-d", "PO-1/2"])
        let auto = try XCTUnwrap(try read(image, .auto).first)
        XCTAssertEqual(auto.text, "PO-1/2")
        XCTAssertFalse(auto.bytesDifferFromText)
        XCTAssertEqual(try read(image, .always), [])
    }
}
