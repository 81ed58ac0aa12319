import EdgeContract
import XCTest

final class ContractPathTests: XCTestCase {
    /// Every path the agent calls is documented, and the document has no path the agent does not
    /// know of.
    func testEveryAPIPathIsInTheDocument() throws {
        let document = try ContractDocument()
        let known = [
            APIPath.syncPush, APIPath.syncPull, APIPath.enrollmentLink, APIPath.enrollmentStatus,
            APIPath.enrollmentRefresh, APIPath.scanBarcode, APIPath.scanQR, APIPath.grnConfirm, APIPath.deviceRegister,
            APIPath.grnPhotos + "/{sha256}",
        ]
        for path in known {
            XCTAssertNotNil(document.paths[path], "\(path) is not in models/openapi.json")
        }
        XCTAssertEqual(Set(document.paths.keys), Set(known))
    }

    /// Sync push and GRN confirmation are applied at most once: the key is required there.
    func testIdempotencyKeyIsRequiredOnWritesAppliedOnce() throws {
        let document = try ContractDocument()
        for path in [APIPath.syncPush, APIPath.grnConfirm] {
            guard case .array(let parameters) = document.paths[path]?["post"]?["parameters"] ?? .null else {
                XCTFail("\(path) has no parameters")
                continue
            }
            let key = parameters.map(document.resolve).first { $0["name"]?.stringValue == SyncHeaderName.idempotencyKey }
            XCTAssertEqual(key?["required"], .bool(true), path)
            XCTAssertEqual(key?["in"], .string("header"), path)
        }
    }

    /// Only enrollment link goes without a bearer token.
    func testOnlyEnrollmentLinkIsUnauthenticated() throws {
        let document = try ContractDocument()
        for (path, item) in document.paths {
            guard case .object(let operations) = item else { continue }
            for (_, operation) in operations {
                if path == APIPath.enrollmentLink {
                    XCTAssertEqual(operation["security"], .array([]), path)
                } else {
                    XCTAssertNil(operation["security"], "\(path) overrides the document's bearer security")
                }
            }
        }
    }
}
