import Foundation
import XCTest

/// `edge sync run` and `edge sync status` against the stand-in: what an operator sees when
/// entries are sent, dead-lettered, in conflict, or stopped by a 426.
final class SyncRunCommandTests: XCTestCase {
    func testRunThenStatusTellsWhatIsStuckAndWhy() throws {
        let token = "run-token-\(UUID().uuidString)"
        let standin = try StandinProcess(token: token)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("edge-sync-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let vault = dir.appendingPathComponent("vault").path
        let config = dir.appendingPathComponent("edge.json").path
        try Data(#"{"sync": {"base_url": "\#(standin.baseURL)", "database": "\#(dir.appendingPathComponent("edge.sqlite").path)"}}"#.utf8)
            .write(to: URL(fileURLWithPath: config))
        func edge(_ arguments: [String], input: String? = nil) throws -> EdgeProcess.Outcome {
            try EdgeProcess.run(arguments + ["--config", config], input: input.map { Data($0.utf8) })
        }
        XCTAssertEqual(try EdgeProcess.run(["vault", "put", "sync.token", "--dir", vault, "--backend", "keyfile"], input: Data(token.utf8)).status, 0)
        let vaultArguments = ["--dir", vault, "--backend", "keyfile"]

        // A scan event, a GRN the server refuses (negative quantity) and one for an order it
        // already received in full (the stand-in's demo data is off here: unknown order -> 404).
        XCTAssertEqual(try edge(["sync", "enqueue", "po/PO-2026-00042", "--kind", "scan", "--json-file", "-"], input: #"{"text":"PO-2026-00042"}"#).status, 0)
        XCTAssertEqual(try edge(["sync", "enqueue", "po/PO-2026-99999", "--kind", "grn.confirm", "--json-file", "-"],
                                input: #"{"po_number":"PO-2026-99999","confirmed_at":"2026-11-22T09:00:00.000+01:00","lines":[{"line_no":1,"received":1}],"photos":[]}"#).status, 0)
        let run = try edge(["sync", "run"] + vaultArguments)
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
        XCTAssertTrue(run.stdout.contains("sent 1, retrying 0, conflicts 0, dead letters 1, held 0"), run.stdout)
        XCTAssertTrue(run.stdout.contains("pulled 0 changes in 1 pages"), run.stdout)

        let status = try edge(["sync", "status"])
        XCTAssertEqual(status.status, 1, "a dead letter needs an operator")
        XCTAssertTrue(status.stdout.contains("sending: ok"), status.stdout)
        XCTAssertTrue(status.stdout.contains("dead letters: 1 (send again with `edge sync requeue ID`)"), status.stdout)
        XCTAssertTrue(status.stdout.contains("po/PO-2026-99999 grn.confirm seq 2: HTTP 404"), status.stdout)
        XCTAssertFalse(status.stdout.contains("last successful push: never"), status.stdout)

        // The backend now demands an upgrade: nothing is dropped, status says why sending stopped.
        try standin.control("POST", "/_standin/faults", json: #"{"faults": [{"kind": "status", "path_prefix": "/api/sync/push", "parameters": {"status": 426, "code": "UPGRADE_REQUIRED", "message": "edge 9 or later is required"}}]}"#)
        XCTAssertEqual(try edge(["sync", "enqueue", "po/PO-2026-00042", "--json-file", "-"], input: "{}").status, 0)
        let stopped = try edge(["sync", "run", "--no-pull"] + vaultArguments)
        XCTAssertEqual(stopped.status, 1)
        XCTAssertTrue(stopped.stdout.contains("STOPPED, update edge: edge 9 or later is required"), stopped.stdout)
        let after = try edge(["sync", "status", "--json"])
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(after.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(document["upgrade_required"] as? Bool, true)
        XCTAssertEqual(document["depth"] as? Int, 1)
        XCTAssertEqual(document["needs_attention"] as? Bool, true)
        let file = dir.appendingPathComponent("status.json")
        try Data(after.stdout.utf8).write(to: file)
        XCTAssertEqual(try SchemaValidator.validate(jsonLines: file, against: EdgeProcess.packageRoot.appendingPathComponent("models/sync-status.schema.json").path), 1)
        // The token never reaches output.
        XCTAssertFalse((run.stdout + run.stderr + status.stdout + after.stdout + stopped.stdout + stopped.stderr).contains(token))
    }
}
