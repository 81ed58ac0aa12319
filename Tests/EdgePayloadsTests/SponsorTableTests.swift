import XCTest
@testable import EdgePayloads

final class SponsorTableTests: XCTestCase {
    private func refusal(_ json: String) -> PayloadConfigError? {
        do {
            _ = try SponsorTable(json: Data(json.utf8))
            return nil
        } catch {
            return error
        }
    }

    func testParsesArrayForm() throws {
        let table = try Fixtures.sponsors
        XCTAssertEqual(table.count, 2)
        XCTAssertEqual(table.sponsor(forPrefix: "AB")?.sponsorID, "sponsor-a")
        XCTAssertEqual(table.sponsor(forPrefix: "AB")?.backendURL.absoluteString, "https://s1.portal.example/api")
        XCTAssertEqual(table.sponsor(forPrefix: "34")?.sponsorID, "sponsor-b")
        XCTAssertNil(table.sponsor(forPrefix: "XY"))
    }

    func testParsesObjectFormAndIgnoresOtherKeys() throws {
        let json = #"{"camera": {"device": "/dev/video0"}, "sponsors": [{"prefix": "CD", "sponsor_id": "c", "backend_url": "https://x.example"}]}"#
        let table = try SponsorTable(json: Data(json.utf8))
        XCTAssertEqual(table.entries.map(\.prefix), ["CD"])
    }

    func testEmptyTableIsAllowed() throws {
        XCTAssertTrue(try SponsorTable(json: Data("[]".utf8)).isEmpty)
        XCTAssertTrue(SponsorTable.empty.isEmpty)
    }

    func testRefusesDuplicatePrefix() {
        let json = """
        [{"prefix": "AB", "sponsor_id": "a", "backend_url": "https://x.example"},
         {"prefix": "CD", "sponsor_id": "c", "backend_url": "https://x.example"},
         {"prefix": "AB", "sponsor_id": "b", "backend_url": "https://y.example"}]
        """
        let err = refusal(json)
        XCTAssertEqual(err?.code, .duplicatePrefix)
        XCTAssertEqual(err?.message, "prefix \"AB\" is listed twice (sponsors[0] and sponsors[2])")
    }

    func testRefusalsNameTheEntry() {
        let badPrefix = refusal(#"[{"prefix": "A1", "sponsor_id": "a", "backend_url": "https://x.example"}]"#)
        XCTAssertEqual(badPrefix?.code, .badPrefix)
        XCTAssertTrue(badPrefix?.message.hasPrefix("[0]: prefix \"A1\"") ?? false, badPrefix?.message ?? "")

        let badURL = refusal(#"{"sponsors": [{"prefix": "AB", "sponsor_id": "a", "backend_url": "http://x.example"}]}"#)
        XCTAssertEqual(badURL?.code, .badBackendURL)
        XCTAssertTrue(badURL?.message.hasPrefix("sponsors[0]: backend_url") ?? false, badURL?.message ?? "")
        XCTAssertEqual(badURL?.context["path"], "sponsors[0]")
    }

    func testRefusesMalformedJSONAndMissingOrMistypedFields() {
        XCTAssertEqual(refusal("[{")?.code, .malformedJSON)
        XCTAssertEqual(refusal("")?.code, .malformedJSON)
        let missing = refusal(#"[{"prefix": "AB", "sponsor_id": "a"}]"#)
        XCTAssertEqual(missing?.code, .missingField)
        XCTAssertEqual(missing?.message, "[0]: missing \"backend_url\"")
        let mistyped = refusal(#"[{"prefix": 12, "sponsor_id": "a", "backend_url": "https://x.example"}]"#)
        XCTAssertEqual(mistyped?.code, .wrongType)
        XCTAssertEqual(mistyped?.message, "[0].prefix must be a string")
        XCTAssertEqual(refusal(#"{"sponsors": {"AB": "x"}}"#)?.code, .wrongType)
        XCTAssertEqual(refusal(#""AB""#)?.code, .wrongType)
    }
}
