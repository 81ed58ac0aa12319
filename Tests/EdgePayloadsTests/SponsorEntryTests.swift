import XCTest
@testable import EdgePayloads

final class SponsorEntryTests: XCTestCase {
    private func refusal(_ prefix: String = "AB", _ id: String = "sponsor-a", _ url: String = "https://s1.portal.example/api")
        -> PayloadConfigError? {
        do {
            _ = try SponsorEntry(prefix: prefix, sponsorID: id, backendURL: url)
            return nil
        } catch {
            return error
        }
    }

    func testAcceptsHttpsAndLoopbackHttp() {
        XCTAssertNil(refusal())
        XCTAssertNil(refusal("AB", "s", "http://127.0.0.1:8080/api"))
        XCTAssertNil(refusal("AB", "s", "http://localhost/api"))
        XCTAssertNil(refusal("AB", "s", "HTTPS://s1.portal.example"))
    }

    func testRefusesPlainHttpElsewhere() {
        XCTAssertEqual(refusal("AB", "s", "http://s1.portal.example/api")?.code, .badBackendURL)
        XCTAssertEqual(refusal("AB", "s", "http://127.0.0.2/api")?.code, .badBackendURL)
        XCTAssertEqual(refusal("AB", "s", "ftp://s1.portal.example/api")?.code, .badBackendURL)
        XCTAssertTrue(refusal("AB", "s", "http://s1.portal.example/api")?.message.contains("https") ?? false)
    }

    func testRefusesRelativeOrHostlessOrCredentialURLs() {
        XCTAssertEqual(refusal("AB", "s", "/api")?.code, .badBackendURL)
        XCTAssertEqual(refusal("AB", "s", "https:///api")?.code, .badBackendURL)
        XCTAssertEqual(refusal("AB", "s", "not a url")?.code, .badBackendURL)
        XCTAssertEqual(refusal("AB", "s", "https://user:pw@s1.portal.example/api")?.code, .badBackendURL)
    }

    func testRefusesBadPrefixes() {
        for prefix in ["A", "ABC", "ab", "A1", "O4", "S3", "Z3", "2A", "A-", "", "ÄB"] {
            XCTAssertEqual(refusal(prefix)?.code, .badPrefix, prefix)
        }
        XCTAssertNil(refusal("34"))
    }

    func testRefusesBadSponsorIDs() {
        XCTAssertEqual(refusal("AB", "")?.code, .badSponsorID)
        XCTAssertEqual(refusal("AB", " sponsor")?.code, .badSponsorID)
        XCTAssertEqual(refusal("AB", "spon\u{0}sor")?.code, .badSponsorID)
        XCTAssertEqual(refusal("AB", String(repeating: "x", count: 129))?.code, .badSponsorID)
    }
}
