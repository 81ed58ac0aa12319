import EdgeSync
import FoundationEssentials
import XCTest

final class SyncSettingsTests: XCTestCase {
    private func settings(_ json: String) throws -> SyncSettings {
        try JSONDecoder().decode(SyncSettings.self, from: Data(json.utf8))
    }

    func testDefaults() throws {
        let s = try settings(#"{"base_url": "https://backend.invalid/api"}"#)
        XCTAssertEqual(s.database, "/var/lib/edge/edge.sqlite")
        XCTAssertEqual(s.tokenSecret, "sync.token")
        XCTAssertEqual(s.requestsPerMinute, 100)
        XCTAssertEqual(s.connectTimeout, 10)
        XCTAssertEqual(s.totalTimeout, 30)
        XCTAssertNoThrow(try s.validate())
    }

    func testPlainHTTPOnlyToLoopback() throws {
        for url in ["http://127.0.0.1:8080", "http://127.1.2.3/api", "http://localhost:9", "http://localhost", "http://[::1]:80/x"] {
            XCTAssertNoThrow(try settings(#"{"base_url": "\#(url)"}"#).validate(), url)
        }
        for url in ["http://10.0.0.1", "http://127.evil.invalid", "http://localhost.evil.invalid", "ftp://127.0.0.1",
                    "http://127.0.0.1.nip.invalid", "https://a.invalid/x?y=1", "https://a b.invalid"] {
            XCTAssertThrowsError(try settings(#"{"base_url": "\#(url)"}"#).validate(), url) { error in
                XCTAssertEqual((error as? SyncError)?.context["key"], "sync.base_url")
            }
        }
    }

    func testLimitsAndPins() throws {
        XCTAssertThrowsError(try settings(#"{"base_url": "https://a.invalid", "requests_per_minute": 500}"#).validate())
        XCTAssertThrowsError(try settings(#"{"base_url": "https://a.invalid", "pins": ["md5//abc"]}"#).validate())
        XCTAssertNoThrow(try settings(#"{"base_url": "https://a.invalid", "pins": ["sha256//\#(String(repeating: "A", count: 43))="]}"#).validate())
        XCTAssertThrowsError(try settings(#"{"base_url": "https://a.invalid", "total_timeout": 0}"#).validate())
    }
}
