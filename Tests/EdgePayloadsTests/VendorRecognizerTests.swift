import XCTest
@testable import EdgePayloads

final class VendorRecognizerTests: XCTestCase {
    private var classifier: PayloadClassifier!

    override func setUpWithError() throws {
        classifier = try Fixtures.classifier
    }

    private func qr(_ text: String) -> Classification { classifier.classify(text: text, symbology: .qr) }

    func testValidCard() {
        XCTAssertEqual(qr(Fixtures.vendorCard()),
                       Classification(className: "vendor", valid: true, reason: nil,
                                      details: ["vendor_id": Fixtures.vendorID, "tenant_id": Fixtures.tenantID]))
        // Upper-case UUIDs are reported lower-case; pretty-printed JSON and scalar extras are fine.
        let pretty = """
        {
          "type": "VENDOR",
          "vendor_id": "\(Fixtures.vendorID.uppercased())",
          "tenant_id": "\(Fixtures.tenantID)",
          "name": "ACME", "v": 2
        }
        """
        XCTAssertEqual(qr(pretty).details["vendor_id"], Fixtures.vendorID)
        assertClass(qr(pretty), "vendor", valid: true)
    }

    func testBadUUIDsNameTheField() {
        assertClass(qr(Fixtures.vendorCard(vendor: "not-a-uuid")), "vendor", valid: false,
                    reason: "vendor_id \"not-a-uuid\" is not a UUID (expected 8-4-4-4-12 hexadecimal digits)")
        assertClass(qr(Fixtures.vendorCard(tenant: "3f2b8c1e9d4a4c6b8e2f1a2b3c4d5e6f")), "vendor", valid: false,
                    reason: "tenant_id \"3f2b8c1e9d4a4c6b8e2f1a2b3c4d5e6f\" is not a UUID (expected 8-4-4-4-12 hexadecimal digits)")
        assertClass(qr(Fixtures.vendorCard(tenant: "{3f2b8c1e-9d4a-4c6b-8e2f-1a2b3c4d5e6f}")), "vendor", valid: false)
        assertClass(qr(Fixtures.vendorCard(vendor: "3f2b8c1e-9d4a-4c6b-8e2f-1a2b3c4d5e6g")), "vendor", valid: false)
        assertClass(qr(Fixtures.vendorCard(vendor: "00000000-0000-0000-0000-000000000000")), "vendor", valid: false,
                    reason: "vendor_id is the nil UUID, which names no one")
    }

    func testAllProblemsAreReported() {
        assertClass(qr(#"{"type":"VENDOR","vendor_id":"x"}"#), "vendor", valid: false,
                    reason: "vendor_id \"x\" is not a UUID (expected 8-4-4-4-12 hexadecimal digits); tenant_id is missing")
    }

    func testMissingFieldsAndWrongTypes() {
        assertClass(qr(#"{"type":"VENDOR"}"#), "vendor", valid: false, reason: "vendor_id is missing; tenant_id is missing")
        assertClass(qr(#"{"type":"VENDOR","vendor_id":42,"tenant_id":"\#(Fixtures.tenantID)"}"#), "vendor", valid: false,
                    reason: "vendor_id must be a UUID string, found a number")
        assertClass(qr(#"{"type":"VENDOR","vendor_id":{"id":"\#(Fixtures.vendorID)"},"tenant_id":"\#(Fixtures.tenantID)"}"#),
                    "vendor", valid: false, reason: "vendor_id must be a UUID string, found an object")
        assertClass(qr(#"{"type":"VENDOR","vendor_id":null,"tenant_id":"\#(Fixtures.tenantID)"}"#), "vendor", valid: false,
                    reason: "vendor_id must be a UUID string, found null")
    }

    func testTypeProblems() {
        assertClass(qr(#"{"type":"vendor","vendor_id":"\#(Fixtures.vendorID)","tenant_id":"\#(Fixtures.tenantID)"}"#),
                    "vendor", valid: false, reason: "\"type\" must be exactly \"VENDOR\", found \"vendor\"")
        assertClass(qr(#"{"vendor_id":"\#(Fixtures.vendorID)","tenant_id":"\#(Fixtures.tenantID)"}"#),
                    "vendor", valid: false, reason: "the vendor card has no \"type\": \"VENDOR\"")
        assertClass(qr(#"{"type":1,"vendor_id":"\#(Fixtures.vendorID)","tenant_id":"\#(Fixtures.tenantID)"}"#),
                    "vendor", valid: false, reason: "\"type\" must be the string \"VENDOR\", found a number")
        // A NUL in any string is refused by the parser (issue #16): still a bad vendor card.
        let nul = qr(#"{"type":"VEN\u0000DOR","vendor_id":"\#(Fixtures.vendorID)","tenant_id":"\#(Fixtures.tenantID)"}"#)
        assertClass(nul, "vendor", valid: false)
        assertReason(nul, contains: "control character U+0000")
    }

    func testExtraNesting() {
        let card = Fixtures.vendorCard()
        assertClass(qr("[\(card)]"), "vendor", valid: false,
                    reason: "the vendor card must be a flat JSON object at the top level, not nested inside other JSON")
        assertClass(qr(#"{"card":\#(card)}"#), "vendor", valid: false)
        let extra = #"{"type":"VENDOR","vendor_id":"\#(Fixtures.vendorID)","tenant_id":"\#(Fixtures.tenantID)","x":[1]}"#
        assertClass(qr(extra), "vendor", valid: false, reason: "unexpected nested value (an array) under \"x\"")
    }

    /// Issue #16: `"vendor_id\u0000"` is another Swift key than `"vendor_id"`, so this card used
    /// to classify as valid with one of the two ids picked; keys with controls or invisible format
    /// characters are refused, escaped or raw.
    func testKeysWithControlOrFormatCharactersAreRefused() {
        let other = "5f0c2a4e-9b7d-4c1e-8f3a-2d6b9e0c1a47"
        for spelling in [#"vendor_id\u0000"#, "vendor_id\u{0}", #"vendor_id\u001b"#, #"vendor_id\u200b"#, #"vendor_id\u202e"#,
                         "vendor_id\u{200B}", #"\ufeffvendor_id"#, #"vendor_id\u0085"#] {
            let card = #"{"type":"VENDOR","\#(spelling)":"\#(other)","vendor_id":"\#(Fixtures.vendorID)","tenant_id":"\#(Fixtures.tenantID)"}"#
            let result = qr(card)
            assertClass(result, "vendor", valid: false)
            // Escaped in the JSON, the parser refuses the key; raw in the payload, the taint
            // check refuses the whole payload first and names the character.
            let raw = spelling.unicodeScalars.contains { $0.value < 0x20 || $0.properties.generalCategory == .format }
            assertReason(result, contains: raw ? "U+" : "the vendor card is not valid JSON")
        }
        // The same control in a value: refused too (no vendor field allows one).
        let value = qr(#"{"type":"VENDOR","vendor_id":"\#(Fixtures.vendorID)\u0000","tenant_id":"\#(Fixtures.tenantID)"}"#)
        assertClass(value, "vendor", valid: false)
        assertReason(value, contains: "U+0000")
    }

    func testDuplicateKeysAreRefused() {
        let card = #"{"type":"VENDOR","vendor_id":"\#(Fixtures.vendorID)","tenant_id":"\#(Fixtures.tenantID)","tenant_id":"\#(Fixtures.vendorID)"}"#
        let result = qr(card)
        assertClass(result, "vendor", valid: false)
        assertReason(result, contains: "duplicate key \"tenant_id\"")
    }

    func testBrokenJSON() {
        let result = qr(#"{"type":"VENDOR","vendor_id":"#)
        assertClass(result, "vendor", valid: false)
        assertReason(result, contains: "the vendor card is not valid JSON")
    }

    func testOnOtherSymbologies() {
        assertClass(classifier.classify(text: Fixtures.vendorCard(), symbology: .code128), "vendor", valid: false,
                    reason: "vendor cards are QR codes; this is a Code 128 barcode")
    }

    func testOtherJSONIsUnknown() {
        assertClass(qr(#"{"type":"SUPPLIER","vendor_id":"\#(Fixtures.vendorID)"}"#), "unknown", valid: true)
        assertClass(qr(#"{"a":1}"#), "unknown", valid: true)
        assertClass(qr("[1,2,3]"), "unknown", valid: true)
        assertClass(qr("{not json"), "unknown", valid: true)
    }
}
