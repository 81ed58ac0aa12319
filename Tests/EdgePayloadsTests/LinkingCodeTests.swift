import XCTest
@testable import EdgePayloads

final class LinkingCodeTests: XCTestCase {
    func testDescriptionIsRedacted() throws {
        let code = try LinkingCode(carriedBy: "AB-CDE-FGHJK", source: .typed, sponsors: try Fixtures.sponsors)
        XCTAssertEqual("\(code)", "AB-***-*****")
        XCTAssertFalse(String(reflecting: code).contains("CDE"))
    }

    func testAlphabet() {
        XCTAssertEqual(LinkingCodeAlphabet.characters.count, 28)
        for ch in LinkingCodeAlphabet.lookAlikes {
            XCTAssertFalse(LinkingCodeAlphabet.characters.contains(ch))
        }
        XCTAssertEqual(Set(LinkingCodeAlphabet.characters + LinkingCodeAlphabet.lookAlikes).count, 36)
    }

    func testCarrierNames() {
        XCTAssertEqual(LinkingCodeCarrier.allCases.map(\.rawValue), ["bare", "url-query", "url-path", "json"])
    }
}
