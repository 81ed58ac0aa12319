import XCTest
@testable import EdgePayloads

/// Shared test data: a two-sponsor table (prefixes AB and 34) and a classifier over it.
enum Fixtures {
    static let tableJSON = """
    [{"prefix": "AB", "sponsor_id": "sponsor-a", "backend_url": "https://s1.portal.example/api"},
     {"prefix": "34", "sponsor_id": "sponsor-b", "backend_url": "http://127.0.0.1:8080/api"}]
    """

    static var sponsors: SponsorTable {
        get throws { try SponsorTable(json: Data(tableJSON.utf8)) }
    }

    static var classifier: PayloadClassifier {
        get throws { PayloadClassifier(sponsors: try sponsors) }
    }

    static let vendorID = "3f2b8c1e-9d4a-4c6b-8e2f-1a2b3c4d5e6f"
    static let tenantID = "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d"

    static func vendorCard(vendor: String = vendorID, tenant: String = tenantID) -> String {
        #"{"type":"VENDOR","vendor_id":"\#(vendor)","tenant_id":"\#(tenant)"}"#
    }
}

/// Asserts class, validity and (when given) the exact reason.
func assertClass(_ result: Classification, _ className: String, valid: Bool, reason: String? = nil,
                 file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(result.className, className, "class; reason was \(result.reason ?? "nil")", file: file, line: line)
    XCTAssertEqual(result.valid, valid, "valid; reason was \(result.reason ?? "nil")", file: file, line: line)
    if valid {
        XCTAssertNil(result.reason, "a valid result has no reason", file: file, line: line)
    } else {
        XCTAssertNotNil(result.reason, "an invalid result has a reason", file: file, line: line)
    }
    if let reason {
        XCTAssertEqual(result.reason, reason, file: file, line: line)
    }
}

/// Asserts the reason contains `fragment`.
func assertReason(_ result: Classification, contains fragment: String, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertTrue(result.reason?.contains(fragment) ?? false, "reason \(result.reason ?? "nil") lacks \(fragment)", file: file, line: line)
}
