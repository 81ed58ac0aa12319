import EdgeImaging
@testable import EdgeScanning
import XCTest

/// Code 32 (issue #15): the base-32 reading and its check digit, and symbols drawn by zint
/// (`-b 129`, which computes the check digit itself) read through the reader.
final class Code32Tests: XCTestCase {
    private func decode(_ raw: String) -> String? {
        Code32.decode(Array(raw.utf8)).map { String(decoding: $0, as: UTF8.self) }
    }

    func testSixBase32CharactersReadAsTheMedicineNumber() {
        // 123456788 = 3·32^5 + P(21)·32^4 + R(23)·32^3 + M(19)·32^2 + 8·32 + N(20).
        XCTAssertEqual(decode("3PRM8N"), "A123456788")
        XCTAssertEqual(decode("00000D"), "A000000012", "leading zeros are kept: nine digits")
    }

    func testWhatIsNotACode32StaysCode39() {
        XCTAssertNil(decode("3PRM8P"), "123456789: the check digit of 12345678 is 8")
        XCTAssertNil(decode("3PRM8"), "five characters")
        XCTAssertNil(decode("3PRM8NN"), "seven characters")
        XCTAssertNil(decode("3PRMAN"), "A is not a base-32 digit (no vowels)")
        XCTAssertNil(decode("3PRM-N"), "punctuation")
        XCTAssertNil(decode("ZZZZZZ"), "2^30 - 1 has ten digits")
    }

    private func read(_ image: GrayImage, _ formats: Set<BarcodeFormat>) throws -> [ScanResult] {
        try BarcodeReader(options: ReaderOptions(formats: formats)).read(image)
    }

    func testZintsCode32ReadsAsItsNumberWhenAskedFor() throws {
        for number in ["12345678", "00000001", "98765432", "40000000"] {
            let image = try Encoders.zint(["-b", "129", "--quietzones", "-d", number])
            let results = try read(image, [.code32, .code39])
            XCTAssertEqual(results.map(\.format), [.code32], number)
            let text = try XCTUnwrap(results.first?.text)
            XCTAssertTrue(text.hasPrefix("A" + number), "\(number): \(text)")
            XCTAssertEqual(text.count, 10, "\(number): zint's check digit is the one edge verifies")
            XCTAssertEqual(results.first?.bytes.count, 6, "the Code 39 characters are kept")
            // Off unless asked for: the standard set reads the Code 39 characters.
            let plain = try read(image, BarcodeFormat.standard)
            XCTAssertEqual(plain.map(\.format), [.code39], number)
            XCTAssertEqual(plain.first.map { String(decoding: $0.bytes, as: UTF8.self) }, plain.first?.text)
        }
    }

    func testOnlyCode32LeavesOtherCode39LabelsUnread() throws {
        let image = try Encoders.zint(["-b", "8", "--quietzones", "-d", "PO-2026-00043"])
        XCTAssertEqual(try read(image, [.code32]), [])
        XCTAssertEqual(try read(image, [.code32, .code39]).map(\.text), ["PO-2026-00043"])
    }
}
