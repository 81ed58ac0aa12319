import XCTest
@testable import EdgePayloads
import EdgeTestSupport

/// SCN-10: hostile payloads must not crash or mislead; plus the classifier's overall order.
final class PayloadClassifierTests: XCTestCase {
    private var classifier: PayloadClassifier!

    override func setUpWithError() throws {
        classifier = try Fixtures.classifier
    }

    func testUnknownIsNotAnError() {
        XCTAssertEqual(classifier.classify(text: "hello", symbology: .qr),
                       Classification(className: "unknown", valid: true, reason: nil, details: [:]))
        assertClass(classifier.classify(text: "", symbology: .qr), "unknown", valid: true)
    }

    func testSurroundingWhitespaceAndBOMAreIgnored() {
        assertClass(classifier.classify(text: "PO-2024-00001\r\n", symbology: .code128), "purchase-order", valid: true)
        assertClass(classifier.classify(text: "\u{FEFF}AB-CDE-FGHJK\n", symbology: .qr), "linking-code", valid: true)
    }

    // MARK: size

    func testHundredKilobytePayload() {
        let big = String(repeating: "A", count: 100_000)
        let result = classifier.classify(text: big, symbology: .qr)
        assertClass(result, "unknown", valid: false,
                    reason: "the payload is 100000 bytes long; payloads over 4096 bytes are not inspected")
        XCTAssertEqual(result.details["bytes"], "100000")
        assertClass(classifier.classify(bytes: Array(repeating: 0x41, count: 100_000), symbology: .code128), "unknown", valid: false)
        // A big payload that starts like a card is still not inspected.
        let bigCard = Fixtures.vendorCard() + String(repeating: " ", count: 5000)
        assertClass(classifier.classify(text: bigCard, symbology: .qr), "unknown", valid: false)
    }

    func testLimitIsInclusive() {
        let atLimit = "PO-2024-00001" + String(repeating: " ", count: 4096 - 13)
        assertClass(classifier.classify(text: atLimit, symbology: .code128), "purchase-order", valid: true)
        assertClass(classifier.classify(text: atLimit + " ", symbology: .code128), "unknown", valid: false)
    }

    // MARK: JSON depth

    func testTenThousandDeepJSON() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        assertClass(classifier.classify(text: deep, symbology: .qr), "unknown", valid: false)
        let deepObject = String(repeating: #"{"a":"#, count: 10_000) + "1" + String(repeating: "}", count: 10_000)
        assertClass(classifier.classify(bytes: Array(deepObject.utf8), symbology: .qr), "unknown", valid: false)
    }

    func testDeepJSONWithinTheSizeLimit() {
        let deep = String(repeating: "[", count: 2000) + String(repeating: "]", count: 2000)
        assertClass(classifier.classify(text: deep, symbology: .qr), "unknown", valid: false,
                    reason: "the JSON is nested more than 16 levels deep and was not inspected")
        let seventeen = String(repeating: "[", count: 17) + String(repeating: "]", count: 17)
        assertClass(classifier.classify(text: seventeen, symbology: .qr), "unknown", valid: false)
        let sixteen = String(repeating: "[", count: 16) + String(repeating: "]", count: 16)
        assertClass(classifier.classify(text: sixteen, symbology: .qr), "unknown", valid: true)
        // Unbalanced and unterminated: still no crash.
        assertClass(classifier.classify(text: String(repeating: "[", count: 4000), symbology: .qr), "unknown", valid: false)
        assertClass(classifier.classify(text: String(repeating: "{", count: 10), symbology: .qr), "unknown", valid: true)
    }

    func testVendorCardNestedDeepIsRefused() {
        var card = Fixtures.vendorCard()
        for _ in 0..<20 { card = #"{"x":\#(card)}"# }
        assertClass(classifier.classify(text: card, symbology: .qr), "unknown", valid: false)
    }

    // MARK: control characters

    func testEmbeddedNULNeverValidates() {
        let result = classifier.classify(text: "AB-CDE-FGHJK\u{0}", symbology: .qr)
        assertClass(result, "linking-code", valid: false,
                    reason: "the payload contains the control character U+0000 at position 13")
        XCTAssertEqual(result.details, ["character": "U+0000", "position": "13"])
        assertClass(classifier.classify(text: "AB-CDE\u{0}-FGHJK", symbology: .qr), "linking-code", valid: false)
        assertClass(classifier.classify(text: "\u{0}PO-2024-00001", symbology: .code128), "purchase-order", valid: false)
        assertClass(classifier.classify(text: "4006381333931\u{0}", symbology: .ean13), "product", valid: false)
        assertClass(classifier.classify(text: Fixtures.vendorCard() + "\u{0}", symbology: .qr), "vendor", valid: false)
        assertClass(classifier.classify(text: "\u{0}\u{0}\u{0}", symbology: .qr), "unknown", valid: false,
                    reason: "the payload contains the control character U+0000 at position 1 (and 2 more)")
    }

    func testOtherInvisibleAndControlCharacters() {
        assertReason(classifier.classify(text: "AB-CDE-FGHJK\u{202E}", symbology: .qr),
                     contains: "the invisible formatting character U+202E at position 13")
        assertReason(classifier.classify(text: "AB\u{200B}-CDE-FGHJK", symbology: .qr), contains: "U+200B at position 3")
        assertReason(classifier.classify(text: "PO-2024-00001\u{7F}", symbology: .code128), contains: "U+007F")
        assertReason(classifier.classify(text: "PO-2024-\u{1B}[2J00001", symbology: .code128), contains: "U+001B")
        assertReason(classifier.classify(text: "AB-CDE-FGHJK\u{2028}", symbology: .qr), contains: "separator character U+2028")
        assertReason(classifier.classify(text: "AB-CDE-FGHJ\u{FFFD}", symbology: .qr), contains: "replacement character U+FFFD")
        assertClass(classifier.classify(text: "\u{85}hello", symbology: .qr), "unknown", valid: false)
    }

    func testInteriorLineBreaksAreNotTaintButDoNotMatchCodes() {
        assertClass(classifier.classify(text: "AB-CDE\n-FGHJK", symbology: .qr), "unknown", valid: true)
        assertClass(classifier.classify(text: "PO-2024-\n00001", symbology: .code128), "purchase-order", valid: false,
                    reason: "the order number \"\\u{000A}00001\" must be 5 digits (PO-YYYY-NNNNN)")
    }

    func testLookAlikeUnicodeLettersDoNotPass() {
        // Cyrillic А (U+0410) and full-width digits are not ASCII.
        assertClass(classifier.classify(text: "\u{410}B-CDE-FGHJK", symbology: .qr), "unknown", valid: true)
        assertClass(classifier.classify(text: "PO-２０２４-00001", symbology: .code128), "purchase-order", valid: false)
        assertClass(classifier.classify(text: "４００６３８１３３３９３１", symbology: .ean13), "product", valid: false)
    }

    // MARK: bytes

    func testInvalidUTF8Bytes() {
        let result = classifier.classify(bytes: [0x41, 0x42, 0xFF, 0x43], symbology: .qr)
        assertClass(result, "unknown", valid: false,
                    reason: "the payload is not valid UTF-8 text (byte 0xFF at offset 2) and was not inspected")
        XCTAssertEqual(result.details["offset"], "2")
        for bytes: [UInt8] in [[0xC0, 0x80], [0xED, 0xA0, 0x80], [0xE2, 0x82], [0x80], [0xF5, 0x80, 0x80, 0x80],
                               Array("AB-CDE-FGHJK".utf8) + [0xC3]] {
            assertClass(classifier.classify(bytes: bytes, symbology: .qr), "unknown", valid: false)
        }
    }

    func testValidUTF8BytesAreClassifiedAsText() {
        XCTAssertEqual(classifier.classify(bytes: Array("AB-CDE-FGHJK".utf8), symbology: .qr),
                       classifier.classify(text: "AB-CDE-FGHJK", symbology: .qr))
        assertClass(classifier.classify(bytes: Array("AB-CDE-FGHJK".utf8) + [0], symbology: .qr), "linking-code", valid: false)
        assertClass(classifier.classify(bytes: [], symbology: .qr), "unknown", valid: true)
    }

    func testReasonsNeverEchoRawControlCharacters() {
        let inputs = ["PO-2024-\u{0}\u{1B}0001", "MAT-\u{202E}X", "PO-\u{7}-1", #"{"type":"VENDOR","vendor_id":"\u001b[31m"}"#]
        for input in inputs {
            for symbology in Symbology.allCases {
                let reason = classifier.classify(text: input, symbology: symbology).reason ?? ""
                XCTAssertFalse(reason.unicodeScalars.contains(where: PayloadTaint.isTaint), "\(input) -> \(reason)")
            }
        }
    }

    func testRandomBytesNeverCrash() {
        var generator = SplitMix64(seed: 11)
        let alphabet = Array("{}[]\":,\\-POMAT0123456789ABCDEFGHJK ?=/&".utf8) + [0x00, 0xFF, 0xC3, 0x0A]
        for _ in 0..<2000 {
            let length = Int.random(in: 0..<80, using: &generator)
            let bytes = (0..<length).map { _ in alphabet.randomElement(using: &generator) ?? 0 }
            for symbology in Symbology.allCases {
                let result = classifier.classify(bytes: bytes, symbology: symbology)
                XCTAssertEqual(result.valid, result.reason == nil)
            }
        }
    }
}
