import EdgeTestSupport
import Foundation
import XCTest

/// `edge export` and `edge import` through the real binary (issue #16, item 7): a clinic station
/// with a linked enrollment (tokens in its vault, from the stand-in portal), queued work on the
/// enrollment's credential and the station's, push preferences and devices, and a secret in
/// its vault is exported; the document holds no secret and matches the schema; a new station
/// imports it, exports the same document, and a second import adds nothing.
final class ExportCommandTests: XCTestCase {
    /// The vault marker the CLI tests use (VaultCommandTests): .ci/test fails if any log carries it.
    private let secret = "edge-test-secret-7d1f0c"

    func testExportImportRoundTripsAStationWithoutItsSecrets() throws {
        let standin = try StandinProcess(token: "export-cli-\(UUID().uuidString)", extraArguments: ["--seed-demo-data"])
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("edge-export-\(UUID().uuidString)")
        let old = root.appendingPathComponent("old"), new = root.appendingPathComponent("new")
        try FileManager.default.createDirectory(at: old, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let config = root.appendingPathComponent("edge.json").path
        // No state_dir: each station is chosen by EDGE_STATE_DIR, as a replacement's would be.
        try Data("""
            {"station": {"role": "clinic", "vault_backend": "keyfile"},
             "sponsors": [{"prefix": "AB", "sponsor_id": "sponsor-ab", "backend_url": "\(standin.baseURL)"}],
             "enrollment": {"retry_delay": 0.05, "request_timeout": 5}}
            """.utf8).write(to: URL(fileURLWithPath: config))
        func edge(_ arguments: [String], station: URL, input: String? = nil, config useConfig: Bool = true) throws -> EdgeProcess.Outcome {
            try EdgeProcess.run(arguments + (useConfig ? ["--config", config] : []),
                                environment: ["EDGE_STATE_DIR": station.path, "EDGE_TCTI": "swtpm:path=\(root.path)/no-tpm.sock"],
                                input: input.map { Data($0.utf8) })
        }

        // The old station: an enrollment linked through the portal (its tokens go to the vault).
        let linked = try edge(["enroll", "-", "--json"], station: old, input: "ab 7kx m4pqr\n")
        XCTAssertEqual(linked.status, 0, linked.stderr)
        let enrollment = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(linked.stdout.utf8)) as? [String: Any])?["id"] as? Int)
        var tokens: [String] = []
        for kind in ["access", "refresh"] {
            let token = try edge(["vault", "get", "enrollment.\(enrollment).\(kind)", "--backend", "keyfile"], station: old, config: false)
            XCTAssertEqual(token.status, 0, token.stderr)
            XCTAssertFalse(token.stdout.isEmpty)
            tokens.append(token.stdout)
        }
        XCTAssertEqual(try edge(["vault", "put", "sync.token", "--backend", "keyfile"], station: old, input: secret, config: false).status, 0)
        let queued = try edge(["sync", "enqueue", "enrollment:\(enrollment)", "--kind", "NOTE", "--json-file", "-",
                               "--credential", "enrollment.\(enrollment).access"], station: old, input: #"{"note":"owed"}"#)
        XCTAssertEqual(queued.status, 0, queued.stderr)
        XCTAssertEqual(try edge(["sync", "enqueue", "po/PO-1", "--kind", "scan", "--json-file", "-"], station: old, input: #"{"scan":1}"#).status, 0)
        XCTAssertEqual(try edge(["push", "prefs", "ana", "--zone", "Europe/Berlin"], station: old).status, 0)
        XCTAssertEqual(try edge(["push", "devices", "ana", "--add", "android"], station: old, input: "fcm-token-ana-abcdefghijklmnop\n").status, 0)

        // Export to a file: 0600, valid against the schema, no secret in it.
        let file = root.appendingPathComponent("station.json")
        let exported = try edge(["export", "--output", file.path], station: old)
        XCTAssertEqual(exported.status, 0, exported.stderr)
        let bytes = try Data(contentsOf: file)
        let mode = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int)
        XCTAssertEqual(mode & 0o777, 0o600)
        try PythonCheck.validate(json: bytes, schema: EdgeProcess.packageRoot.appendingPathComponent("models/station-export.schema.json").path)
        let text = String(decoding: bytes, as: UTF8.self)
        // Decoded payloads too: base64 would hide a token from a plain search.
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: bytes) as? [String: Any])
        let payloads = ((document["outbox"] as? [[String: Any]]) ?? []).compactMap { ($0["payload"] as? String).flatMap { Data(base64Encoded: $0) } }
        // The two queued here and what linking queued itself (the enrollment's event).
        XCTAssertGreaterThanOrEqual(payloads.count, 3)
        let everything = text + payloads.map { String(decoding: $0, as: UTF8.self) }.joined() + exported.stdout + exported.stderr
        XCTAssertFalse(everything.contains(secret), "the vault's secret reached the export")
        for token in tokens { XCTAssertFalse(everything.contains(token), "an enrollment token reached the export") }
        XCTAssertFalse(everything.uppercased().contains("7KX-M4PQR"), "the linking code reached the export")
        XCTAssertTrue(text.contains("enrollment.\(enrollment).access"), "credentials are named")
        XCTAssertEqual((document["enrollments"] as? [[String: Any]])?.count, 1)

        // The new station imports it; its own vault stays empty of the old secrets.
        let imported = try edge(["import", file.path, "--json"], station: new)
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(imported.stdout.utf8)) as? [String: Any])
        let tables = try XCTUnwrap(report["tables"] as? [[String: Any]])
        XCTAssertEqual(tables.first { $0["table"] as? String == "outbox" }?["imported"] as? Int, payloads.count)
        XCTAssertNotEqual(try edge(["vault", "get", "sync.token", "--backend", "keyfile"], station: new, config: false).status, 0)

        // Exported again from the new station: the same document but for its time.
        let again = try edge(["export"], station: new)
        XCTAssertEqual(again.status, 0, again.stderr)
        var first = document, second = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any])
        first["exported_at"] = nil
        second["exported_at"] = nil
        XCTAssertEqual(NSDictionary(dictionary: first), NSDictionary(dictionary: second))

        // A second import adds nothing.
        let twice = try edge(["import", file.path], station: new)
        XCTAssertEqual(twice.status, 0, twice.stderr)
        XCTAssertTrue(twice.stdout.contains("nothing new to import"), twice.stdout)
        var third = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(try edge(["export"], station: new).stdout.utf8)) as? [String: Any])
        third["exported_at"] = nil
        XCTAssertEqual(NSDictionary(dictionary: third), NSDictionary(dictionary: second), "nothing duplicated")

        // A newer version and a non-export are refused with exit 1, nothing written.
        var newer = document
        newer["version"] = 99
        let newerFile = root.appendingPathComponent("newer.json")
        try JSONSerialization.data(withJSONObject: newer).write(to: newerFile)
        let fresh = root.appendingPathComponent("fresh")
        let refused = try edge(["import", newerFile.path], station: fresh)
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("format version 99"), refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: fresh.appendingPathComponent("edge.sqlite").path), "nothing written")
        XCTAssertEqual(try edge(["import", "-"], station: fresh, input: "[1, 2]").status, 1)
        XCTAssertEqual(try edge(["export"], station: fresh).status, 2, "no database to export: not an empty export")
    }
}
