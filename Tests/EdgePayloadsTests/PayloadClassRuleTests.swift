import XCTest
@testable import EdgePayloads

final class PayloadClassRuleTests: XCTestCase {
    private func refusal(_ name: String, _ pattern: String = "^X$", _ symbologies: [Symbology] = [.code128]) -> PayloadConfigError? {
        do {
            _ = try PayloadClassRule(name: name, pattern: pattern, symbologies: symbologies)
            return nil
        } catch {
            return error
        }
    }

    func testAcceptsWellFormedRules() throws {
        let rule = try PayloadClassRule(name: "pallet", pattern: "^PAL-[0-9]{6}$", symbologies: [.code128, .qr])
        XCTAssertEqual(rule.symbologies, [.code128, .qr])
        XCTAssertNil(refusal("tote-2"))
    }

    func testRefusesInvalidPatterns() {
        XCTAssertEqual(refusal("pallet", "([a-")?.code, .invalidPattern)
        XCTAssertEqual(refusal("pallet", "(?<a>x)(?<a>y)")?.code, .invalidPattern)
        XCTAssertEqual(refusal("pallet", "")?.code, .invalidPattern)
        XCTAssertEqual(refusal("pallet", String(repeating: "a", count: 2000))?.code, .invalidPattern)
    }

    func testRefusesBadNames() {
        for name in ["", "Pallet", "1pallet", "pal_let", "pallet-", "pal--let", String(repeating: "a", count: 33)] {
            XCTAssertEqual(refusal(name)?.code, .badClassName, name)
        }
        for builtIn in BuiltInPayloadClass.allCases {
            XCTAssertEqual(refusal(builtIn.rawValue)?.code, .badClassName, builtIn.rawValue)
        }
    }

    func testRefusesEmptyOrEAN13Symbologies() {
        XCTAssertEqual(refusal("pallet", "^X$", [])?.code, .badSymbologies)
        XCTAssertEqual(refusal("pallet", "^X$", [.ean13, .code128])?.code, .badSymbologies)
    }

    func testMatchesOnListedSymbologiesOnlyAndReportsNamedGroups() throws {
        let rule = try PayloadClassRule(name: "pallet", pattern: "^PAL-(?<pallet_id>[0-9]{6})$", symbologies: [.code128])
        XCTAssertEqual(rule.classify("PAL-123456", symbology: .code128),
                       Classification(className: "pallet", valid: true, reason: nil, details: ["pallet_id": "123456"]))
        XCTAssertNil(rule.classify("PAL-123456", symbology: .qr))
        XCTAssertNil(rule.classify("PAL-12345", symbology: .code128))
    }

    func testUnanchoredPatternsSearch() throws {
        let rule = try PayloadClassRule(name: "tote", pattern: "TOTE", symbologies: [.qr])
        XCTAssertNotNil(rule.classify("my TOTE 7", symbology: .qr))
    }
}
