import EdgeTestSupport
import Foundation
import XCTest

/// `edge sync` without a backend: queueing, status and its schema, refusals, exit codes.
final class SyncCommandTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try temporaryDirectory(prefix: "edge-sync-cli").url
    }

    private var database: String { directory.appendingPathComponent("edge.sqlite").path }

    private func edge(_ arguments: [String], input: Data? = nil) throws -> EdgeProcess.Outcome {
        try EdgeProcess.run(arguments, environment: ["EDGE_DATABASE": database], input: input)
    }

    func testEnqueuePrintsTheDurableKeyAndStatusShowsTheStream() throws {
        let first = try edge(["sync", "enqueue", "po/PO-2024-00042", "--kind", "scan", "--json-file", "-", "--json"],
                             input: Data(#"{"text":"PO-2024-00042"}"#.utf8))
        XCTAssertEqual(first.status, 0, first.stderr)
        let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(record["sequence"] as? Int, 1)
        XCTAssertEqual((record["idempotency_key"] as? String)?.count, 36)
        XCTAssertEqual(record["stream"] as? String, "po/PO-2024-00042")

        let file = directory.appendingPathComponent("m.json")
        try Data(#"{"n": 2}"#.utf8).write(to: file)
        let second = try edge(["sync", "enqueue", "po/PO-2024-00042", "--json-file", file.path])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertTrue(second.stdout.hasPrefix("queued #2 on po/PO-2024-00042: sequence 2, key "), second.stdout)

        let status = try edge(["sync", "status", "--json"])
        XCTAssertEqual(status.status, 0, status.stderr)
        let out = directory.appendingPathComponent("status.json")
        try Data(status.stdout.utf8).write(to: out)
        XCTAssertEqual(try SchemaValidator.validate(jsonLines: out, against: schema("sync-status")), 1)
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(document["depth"] as? Int, 2)
        XCTAssertEqual(document["paused"] as? Bool, false)
        XCTAssertEqual(document["needs_attention"] as? Bool, false)
        XCTAssertNil(document["last_push"])

        let text = try edge(["sync", "status"])
        XCTAssertEqual(text.status, 0)
        XCTAssertTrue(text.stdout.contains("queue: 2 entries in 1 streams"), text.stdout)
        XCTAssertTrue(text.stdout.contains("last successful push: never; last pull: never"), text.stdout)
        // Payloads never appear in status.
        XCTAssertFalse(text.stdout.contains("PO-2024-00042\"") || status.stdout.contains("\"text\""))
    }

    func testRefusalsAreOneLineWithTheirExitStatus() throws {
        let invalid = try edge(["sync", "enqueue", "s", "--json-file", "-"], input: Data("{not json".utf8))
        XCTAssertEqual(invalid.status, 1)
        XCTAssertEqual(invalid.stderr, "edge: The payload for stream s is not valid JSON.\n")

        let reserved = try edge(["sync", "enqueue", "s", "--credential", "station", "--json-file", "-"], input: Data("{}".utf8))
        XCTAssertEqual(reserved.status, 1)

        let missing = try edge(["sync", "enqueue", "s", "--json-file", directory.appendingPathComponent("absent.json").path])
        XCTAssertEqual(missing.status, 2)

        let requeue = try edge(["sync", "requeue", "42"])
        XCTAssertEqual(requeue.status, 1)
        XCTAssertEqual(requeue.stderr, "edge: There is no dead letter with id 42.\n")

        // No sync section: sending is refused with what to do.
        let noSync = directory.appendingPathComponent("no-sync.json")
        try Data(#"{"station": {"name": "no-sync"}}"#.utf8).write(to: noSync)
        let run = try edge(["sync", "run", "--config", noSync.path])
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.stderr.contains("set sync.base_url"), run.stderr)
    }

    func testCorruptDatabaseIsReportedNotReplaced() throws {
        try Data("this is not a database, but it is somebody's data".utf8).write(to: URL(fileURLWithPath: database))
        let status = try edge(["sync", "status"])
        XCTAssertEqual(status.status, 2)
        XCTAssertTrue(status.stderr.hasPrefix("edge: "), status.stderr)
        XCTAssertEqual(try String(contentsOfFile: database, encoding: .utf8), "this is not a database, but it is somebody's data")
    }

    func testSyncSectionIsValidatedWithAClearMessage() throws {
        let config = directory.appendingPathComponent("edge.json")
        try Data(#"{"sync": {"base_url": "http://10.1.2.3/api"}}"#.utf8).write(to: config)
        let run = try edge(["sync", "status", "--config", config.path])
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.stderr.contains("sync.base_url: must be an https:// URL"), run.stderr)

        let good = directory.appendingPathComponent("good.json")
        try Data(#"{"sync": {"base_url": "https://backend.invalid/api", "database": "\#(database)", "requests_per_minute": 60}}"#.utf8).write(to: good)
        XCTAssertEqual(try SchemaValidator.validate(jsonLines: good, against: schema("edge-config"), wholeFile: true), 1)
        XCTAssertEqual(try EdgeProcess.run(["sync", "status", "--config", good.path]).status, 0)
    }

    private func schema(_ name: String) -> String {
        EdgeProcess.packageRoot.appendingPathComponent("models/\(name).schema.json").path
    }
}
