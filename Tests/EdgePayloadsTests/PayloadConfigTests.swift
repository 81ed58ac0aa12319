import XCTest
@testable import EdgePayloads

final class PayloadConfigTests: XCTestCase {
    private func refusal(_ json: String) -> PayloadConfigError? {
        do {
            _ = try PayloadConfig(json: Data(json.utf8))
            return nil
        } catch {
            return error
        }
    }

    func testReadsSponsorsAndClasses() throws {
        let json = """
        {"sponsors": [{"prefix": "AB", "sponsor_id": "sponsor-a", "backend_url": "https://s1.portal.example/api"}],
         "classes": [{"name": "pallet", "pattern": "^PAL-[0-9]{6}$", "symbologies": ["code128"]}],
         "camera": {"gap_seconds": 1.5}}
        """
        let config = try PayloadConfig(json: Data(json.utf8))
        XCTAssertEqual(config.sponsors.sponsor(forPrefix: "AB")?.sponsorID, "sponsor-a")
        XCTAssertEqual(config.classes.map(\.name), ["pallet"])
        let classifier = PayloadClassifier(config: config)
        assertClass(classifier.classify(text: "PAL-123456", symbology: .code128), "pallet", valid: true)
        assertClass(classifier.classify(text: "AB-CDE-FGHJK", symbology: .qr), "linking-code", valid: true)
    }

    func testBothSectionsAreOptional() throws {
        let config = try PayloadConfig(json: Data("{}".utf8))
        XCTAssertTrue(config.sponsors.isEmpty)
        XCTAssertTrue(config.classes.isEmpty)
    }

    func testRefusesInvalidRegexAtLoad() {
        let err = refusal(#"{"classes": [{"name": "pallet", "pattern": "^PAL-[0-9{6}$", "symbologies": ["code128"]}]}"#)
        XCTAssertEqual(err?.code, .invalidPattern)
        XCTAssertTrue(err?.message.hasPrefix("classes[0]: class \"pallet\": invalid pattern") ?? false, err?.message ?? "")
    }

    func testRefusesUnknownSymbology() {
        let err = refusal(#"{"classes": [{"name": "pallet", "pattern": "^P$", "symbologies": ["datamatrix"]}]}"#)
        XCTAssertEqual(err?.code, .badSymbologies)
        XCTAssertTrue(err?.message.contains("\"datamatrix\"") ?? false)
    }

    func testRefusesDuplicateClassNames() {
        let err = refusal("""
        {"classes": [{"name": "pallet", "pattern": "^P$", "symbologies": ["qr"]},
                     {"name": "pallet", "pattern": "^Q$", "symbologies": ["qr"]}]}
        """)
        XCTAssertEqual(err?.code, .duplicateClassName)
        XCTAssertEqual(err?.message, "classes[1]: class \"pallet\" is defined twice")
    }

    func testRefusesBadShapes() {
        XCTAssertEqual(refusal("[]")?.code, .wrongType)
        XCTAssertEqual(refusal("{")?.code, .malformedJSON)
        XCTAssertEqual(refusal(#"{"classes": [{"name": "pallet", "symbologies": ["qr"]}]}"#)?.code, .missingField)
        XCTAssertEqual(refusal(#"{"classes": [{"name": "pallet", "pattern": "^P$", "symbologies": "qr"}]}"#)?.code, .wrongType)
        XCTAssertEqual(refusal(#"{"sponsors": [{"prefix": "AB", "sponsor_id": "a", "backend_url": "http://evil.example"}]}"#)?.code,
                       .badBackendURL)
    }

    func testConfiguredClassesRunAfterBuiltIns() throws {
        // A rule that would swallow everything still loses to the built-ins.
        let rule = try PayloadClassRule(name: "anything", pattern: ".*", symbologies: [.qr, .code128, .code39])
        let classifier = PayloadClassifier(sponsors: try Fixtures.sponsors, extraClasses: [rule])
        assertClass(classifier.classify(text: "PO-2024-00001", symbology: .code128), "purchase-order", valid: true)
        assertClass(classifier.classify(text: "AB-CDE-FGHJK", symbology: .qr), "linking-code", valid: true)
        assertClass(classifier.classify(text: "hello", symbology: .qr), "anything", valid: true)
    }

    func testFirstMatchingConfiguredClassWins() throws {
        let first = try PayloadClassRule(name: "first", pattern: "^T", symbologies: [.qr])
        let second = try PayloadClassRule(name: "second", pattern: "^TOTE", symbologies: [.qr])
        let classifier = PayloadClassifier(sponsors: .empty, extraClasses: [first, second])
        XCTAssertEqual(classifier.classify(text: "TOTE-1", symbology: .qr).className, "first")
    }
}
