import Foundation
import XCTest

/// `edge receive` and `edge lookup` against the `edge-standin` process: the dock flow an operator
/// runs, online and offline, with the exit statuses of `--help` and JSON valid against models/.
final class ReceiveCommandTests: XCTestCase {
    func testTheDockFlowOnlineOfflineAndItsCards() throws {
        let token = "dock-token-\(UUID().uuidString)"
        let standin = try StandinProcess(token: token, extraArguments: ["--seed-demo-data"])
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("edge-receive-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let vault = dir.appendingPathComponent("vault").path
        let config = dir.appendingPathComponent("edge.json").path
        try Data("""
            {"station": {"state_dir": "\(dir.path)", "role": "dock"},
             "sync": {"base_url": "\(standin.baseURL)", "database": "\(dir.appendingPathComponent("edge.sqlite").path)", "connect_timeout": 2, "total_timeout": 5},
             "receiving": {"tenant_id": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d", "confirm_wait": 0}}
            """.utf8).write(to: URL(fileURLWithPath: config))
        XCTAssertEqual(try EdgeProcess.run(["vault", "put", "sync.token", "--dir", vault, "--backend", "keyfile"], input: Data(token.utf8)).status, 0)
        var outputs = ""
        func edge(_ arguments: [String]) throws -> EdgeProcess.Outcome {
            let outcome = try EdgeProcess.run(arguments + ["--config", config, "--dir", vault, "--backend", "keyfile"])
            outputs += outcome.stdout + outcome.stderr
            return outcome
        }
        func validate(_ outcome: EdgeProcess.Outcome, _ schema: String) throws {
            let file = dir.appendingPathComponent("out.json")
            try Data(outcome.stdout.utf8).write(to: file)
            XCTAssertEqual(try SchemaValidator.validate(jsonLines: file, against: EdgeProcess.packageRoot.appendingPathComponent("models/" + schema).path), 1)
        }
        func json(_ outcome: EdgeProcess.Outcome) throws -> [String: Any] {
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
        }

        let order = try edge(["receive", "PO-2026-00042", "--json"])
        XCTAssertEqual(order.status, 0, order.stderr)
        try validate(order, "receive-order.schema.json")
        XCTAssertEqual(try json(order)["source"] as? String, "online")

        let confirmed = try edge(["receive", "PO-2026-00042", "--confirm", "--line", "1=120", "--line", "2=48:short:two pens missing",
                                  "--photo", EdgeProcess.samples.appendingPathComponent("photo-like.jpg").path, "--json"])
        XCTAssertEqual(confirmed.status, 0, confirmed.stdout + confirmed.stderr)
        try validate(confirmed, "receive-confirmation.schema.json")
        let document = try json(confirmed)
        XCTAssertEqual(document["outcome"] as? String, "applied")
        let photos = try XCTUnwrap(document["photos"] as? [[String: Any]])
        XCTAssertEqual(photos.count, 1)
        XCTAssertNotNil(photos.first?["uploaded_at"])

        let excess = try edge(["receive", "PO-2026-00042", "--confirm", "--line", "1=5"])
        XCTAssertEqual(excess.status, 4)
        XCTAssertTrue(excess.stderr.contains("Line 1: 5 EA received but only 0 EA outstanding; flag the line as excess."), excess.stderr)

        let conflict = try edge(["receive", "PO-2026-00077", "--confirm", "--line", "1=0"])
        XCTAssertEqual(conflict.status, 5, conflict.stdout + conflict.stderr)
        XCTAssertTrue(conflict.stdout.contains("Line 1 (Pallet wrap film 500 mm): 12 of 12 roll received on the server, unchanged"), conflict.stdout)

        // The backend goes away.
        try standin.control("POST", "/_standin/faults", json: #"{"faults": [{"kind": "refuse", "path_prefix": "/api/"}]}"#)
        let cached = try edge(["receive", "PO-2026-00042"])
        XCTAssertEqual(cached.status, 0, cached.stderr)
        XCTAssertTrue(cached.stdout.contains("CACHED copy, fetched"), cached.stdout)
        let never = try edge(["receive", "PO-2026-00043", "--json"])
        XCTAssertEqual(never.status, 3)
        try validate(never, "receive-order.schema.json")
        XCTAssertEqual(try json(never)["source"] as? String, "unavailable")
        let queued = try edge(["receive", "PO-2026-00042", "--confirm", "--line", "3=250.5", "--json"])
        XCTAssertEqual(queued.status, 1, queued.stdout + queued.stderr)
        try validate(queued, "receive-confirmation.schema.json")
        XCTAssertEqual(try json(queued)["offline"] as? Bool, true)
        let offlineLookup = try edge(["lookup", "material", "MAT-ST-4471"])
        XCTAssertEqual(offlineLookup.status, 5)

        // Back online: the queued GRN goes once.
        try standin.control("DELETE", "/_standin/faults")
        XCTAssertEqual(try edge(["sync", "run", "--no-pull"]).status, 0)
        let after = try edge(["receive", "PO-2026-00042", "--json"])
        let lines = try XCTUnwrap(try json(after)["lines"] as? [[String: Any]])
        XCTAssertEqual(lines.map { $0["received"] as? Double }, [120, 48, 250.5])

        let vendor = try edge(["lookup", "vendor", "--image", EdgeProcess.samples.appendingPathComponent("vendor.png").path, "--json"])
        XCTAssertEqual(vendor.status, 0, vendor.stderr)
        try validate(vendor, "lookup.schema.json")
        let other = try edge(["lookup", "vendor", #"{"type":"VENDOR","vendor_id":"3f1c2a9e-8b7d-4c5e-9f10-2a3b4c5d6e7f","tenant_id":"11111111-2222-4333-8444-555555555555"}"#])
        XCTAssertEqual(other.status, 4)
        XCTAssertTrue(other.stderr.contains("belongs to another organisation"), other.stderr)
        let material = try edge(["lookup", "material", "MAT-ST-4471"])
        XCTAssertEqual(material.status, 0, material.stderr)
        XCTAssertTrue(material.stdout.contains("340 EA in stock, price rising"), material.stdout)
        XCTAssertEqual(try edge(["lookup", "product", "4006381333932"]).status, 4)
        let noData = try edge(["lookup", "product", "5901234123457", "--json"])
        XCTAssertEqual(noData.status, 3)
        try validate(noData, "lookup.schema.json")

        XCTAssertTrue(try EdgeProcess.run(["receive", "--help"]).stdout.contains("5   conflict"))
        XCTAssertFalse(outputs.contains(token), "the token never reaches output")
    }
}
