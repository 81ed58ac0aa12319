import EdgeContract
import EdgeHTTP
import EdgeStore
import EdgeSync
import Foundation
import GRDB
import XCTest

final class OutboxRequestBuilderTests: XCTestCase {
    private let identity = SyncIdentity(deviceID: "4f1c2b9e-1111-4222-8333-444455556666", appVersion: "0.3.0",
                                        osVersion: "Debian GNU/Linux 12 (bookworm)", timezone: "Europe/Berlin")

    private func entry(kind: String, payload: String, stream: String = "po/\"quoted\" \"payload\":null") throws -> OutboxEntry {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("edge-builder-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        let outbox = Outbox(database: try EdgeDatabase(path: directory.appendingPathComponent("db.sqlite").path))
        return try outbox.database.dbWriter.write { db in try outbox.enqueue(db, stream: stream, kind: kind, payload: Array(payload.utf8)) }
    }

    func testPushEnvelopeCarriesThePayloadBytesExactly() throws {
        // Numbers a decode/re-encode would change: a 2^63-1 integer, a long fraction, an exponent.
        let payload = #"{"big":9223372036854775807,"f":0.1000000000000000055511151231257827,"e":1.5E+300,"s":"\"payload\":null"}"#
        let entry = try entry(kind: "scan", payload: payload)
        let request = try OutboxRequestBuilder(baseURL: "http://127.0.0.1:8080/", identity: identity)
            .request(for: entry, token: BearerToken("t0k3n"))
        XCTAssertEqual(request.url, "http://127.0.0.1:8080/api/sync/push")
        XCTAssertEqual(request.method, .post)
        let text = String(decoding: request.body, as: UTF8.self)
        XCTAssertTrue(text.contains(#""payload":"# + payload), text)
        // The rest is the contract's envelope.
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
        XCTAssertEqual(object["stream"] as? String, entry.stream)
        XCTAssertEqual(object["kind"] as? String, "scan")
        XCTAssertEqual((object["sequence"] as? NSNumber)?.int64Value, entry.sequence)
        XCTAssertEqual(object["created_at"] as? String, entry.createdAt)
        XCTAssertEqual(object["device_uuid"] as? String, identity.deviceID)
    }

    func testHeadersOfSYN6() throws {
        let entry = try entry(kind: "scan", payload: "{}")
        let request = try OutboxRequestBuilder(baseURL: "https://backend.invalid", identity: identity).request(for: entry, token: BearerToken("t0k3n"))
        let headers = Dictionary(request.headers.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        XCTAssertEqual(headers["Authorization"], "Bearer t0k3n")
        XCTAssertEqual(headers["Idempotency-Key"], entry.idempotencyKey)
        XCTAssertEqual(headers["X-Device-Id"], identity.deviceID)
        XCTAssertEqual(headers["X-App-Version"], "0.3.0")
        XCTAssertEqual(headers["X-Platform"], "LINUX")
        XCTAssertEqual(headers["X-OS-Version"], "Debian GNU/Linux 12 (bookworm)")
        XCTAssertEqual(headers["X-Timezone"], "Europe/Berlin")
        XCTAssertEqual(headers["Content-Type"], "application/json")
        XCTAssertEqual(request.headers.count, 8)
    }

    /// A kind declared with its own endpoint (receiving's GRN confirmations) goes there as is;
    /// undeclared, the same kind is an event in the sync push.
    func testAKindWithItsOwnEndpointGoesThereAsIs() throws {
        let payload = #"{"po_number":"PO-2024-00042","lines":[]}"#
        let entry = try entry(kind: "grn.confirm", payload: payload, stream: "po/PO-2024-00042")
        let kinds = [OutboxKind(name: "grn.confirm", path: "/api/grn/confirm", confirmsDelivery: true)]
        let request = try OutboxRequestBuilder(baseURL: "https://backend.invalid/base", identity: identity, kinds: kinds).request(for: entry, token: nil)
        XCTAssertEqual(request.url, "https://backend.invalid/base/api/grn/confirm")
        XCTAssertEqual(request.body, Array(payload.utf8))
        XCTAssertFalse(request.headers.contains { $0.name == "Authorization" })
        let undeclared = try OutboxRequestBuilder(baseURL: "https://backend.invalid/base", identity: identity).request(for: entry, token: nil)
        XCTAssertEqual(undeclared.url, "https://backend.invalid/base/api/sync/push")
    }

    func testTokenNeverPrints() {
        XCTAssertEqual("\(BearerToken("secret-value"))", "<redacted token>")
        XCTAssertFalse(String(reflecting: BearerToken("secret-value")).contains("secret-value"))
    }

    func testCurrentIdentityIsHeaderSafe() {
        let current = SyncIdentity.current(deviceID: "d", appVersion: "v")
        XCTAssertFalse(current.osVersion.isEmpty)
        XCTAssertFalse(current.timezone.isEmpty)
        XCTAssertTrue((current.osVersion + current.timezone).unicodeScalars.allSatisfy { $0.isASCII && $0.value >= 0x20 })
    }
}
