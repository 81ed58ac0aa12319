import EdgeTestSupport
import Foundation
import XCTest

/// `edge sync release` with the real binary against the stand-in (AGT-6, issue #28 item 2): a
/// rejected station token's hold is released once the vault has a new token, refused while the
/// vault has none, and an enrollment's Study Start hold is refused whatever the vault holds
/// (ENR-13), shown by every status as "waiting for approval" without release advice.
final class SyncReleaseCommandTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try temporaryDirectory(prefix: "edge-sync-release").url
    }

    private func document(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
    }

    private func validate(_ json: String, _ schema: String) throws {
        let file = directory.appendingPathComponent("doc-\(UUID().uuidString).json")
        try Data(json.utf8).write(to: file)
        XCTAssertEqual(try SchemaValidator.validate(jsonLines: file, against: EdgeProcess.packageRoot.appendingPathComponent("models/\(schema)").path,
                                                    wholeFile: true), 1)
    }

    /// The idempotency keys of the pushes the stand-in answered 2xx.
    private func sentKeys(_ standin: StandinProcess) throws -> [String] {
        let requests = try XCTUnwrap(try JSONSerialization.jsonObject(with: standin.control("GET", "/_standin/requests")) as? [[String: Any]])
        return requests.filter { ($0["path"] as? String) == "/api/sync/push" && (200..<300).contains(($0["status"] as? Int) ?? 0) }
            .compactMap { $0["idempotency_key"] as? String }
    }

    func testARevokedStationTokenIsReleasedOnlyOnceTheVaultHasANewOne() throws {
        let old = "old-station-token-\(UUID().uuidString)"
        let new = "new-station-token-\(UUID().uuidString)"
        let standin = try StandinProcess(token: old, extraArguments: ["--token", new])
        let vault = directory.appendingPathComponent("vault").path
        let config = directory.appendingPathComponent("edge.json").path
        try Data(#"{"sync": {"base_url": "\#(standin.baseURL)", "database": "\#(directory.appendingPathComponent("edge.sqlite").path)"}}"#.utf8)
            .write(to: URL(fileURLWithPath: config))
        let vaultArguments = ["--dir", vault, "--backend", "keyfile"]
        func edge(_ arguments: [String], input: String? = nil) throws -> EdgeProcess.Outcome {
            try EdgeProcess.run(arguments + ["--config", config], input: input.map { Data($0.utf8) })
        }
        func putToken(_ token: String) throws {
            XCTAssertEqual(try EdgeProcess.run(["vault", "put", "sync.token"] + vaultArguments, input: Data(token.utf8)).status, 0)
        }
        try putToken(old)
        let enqueued = try edge(["sync", "enqueue", "po/PO-2026-00042", "--kind", "scan", "--json-file", "-"], input: #"{"text":"PO-2026-00042"}"#)
        XCTAssertEqual(enqueued.status, 0, enqueued.stderr)

        // The backend revokes the station's token: the entry is held as a credential fault.
        try standin.control("POST", "/_standin/revoke", json: #"{"token": "\#(old)"}"#)
        let rejected = try edge(["sync", "run", "--no-pull"] + vaultArguments)
        XCTAssertEqual(rejected.status, 1, rejected.stdout + rejected.stderr)
        XCTAssertTrue(rejected.stdout.contains("held 1"), rejected.stdout)
        let status = try edge(["sync", "status", "--json"])
        XCTAssertEqual(status.status, 1, "a rejected token needs an operator")
        try validate(status.stdout, "sync-status.schema.json")
        let hold = try XCTUnwrap((try document(status.stdout)["holds"] as? [[String: Any]])?.first)
        XCTAssertEqual(hold["credential"] as? String, "station")
        XCTAssertEqual(hold["kind"] as? String, "credential")
        XCTAssertEqual(hold["fault"] as? Bool, true)
        XCTAssertEqual(hold["operator_release"] as? Bool, true)

        // The vault no longer has a token for it: refused, nothing released, nothing sent.
        XCTAssertEqual(try EdgeProcess.run(["vault", "rm", "sync.token"] + vaultArguments).status, 0)
        let noToken = try edge(["sync", "release", "station"] + vaultArguments)
        XCTAssertEqual(noToken.status, 3, noToken.stdout + noToken.stderr)
        XCTAssertTrue(noToken.stderr.contains("the vault has no token for station (secret sync.token)"), noToken.stderr)
        XCTAssertTrue(noToken.stderr.contains("Nothing was released."), noToken.stderr)
        XCTAssertEqual(((try document(try edge(["sync", "status", "--json"]).stdout))["holds"] as? [Any])?.count, 1)

        // A new token in the vault: released by hand, and the entry reaches the backend with it.
        try putToken(new)
        let released = try edge(["sync", "release", "station"] + vaultArguments)
        XCTAssertEqual(released.status, 0, released.stdout + released.stderr)
        XCTAssertEqual(released.stdout, "released station; its entries are sent at the next pass\n")
        XCTAssertEqual(((try document(try edge(["sync", "status", "--json"]).stdout))["holds"] as? [Any])?.count, 0)
        let sent = try edge(["sync", "run", "--no-pull"] + vaultArguments)
        XCTAssertEqual(sent.status, 0, sent.stdout + sent.stderr)
        XCTAssertTrue(sent.stdout.contains("sent 1"), sent.stdout)
        XCTAssertEqual(try sentKeys(standin).count, 1)
        XCTAssertEqual(try edge(["sync", "release", "station"] + vaultArguments).status, 1, "no longer held")
        XCTAssertFalse((rejected.stdout + noToken.stderr + released.stdout + sent.stdout + status.stdout).contains(new))
    }

    func testAStudyStartHoldIsWaitingForApprovalAndNoReleaseSendsItsData() throws {
        let stationToken = "clinic-station-\(UUID().uuidString)"
        let standin = try StandinProcess(token: stationToken, extraArguments: ["--seed-demo-data"])
        let dir = directory.path
        let config = directory.appendingPathComponent("edge.json").path
        try Data("""
            {"station": {"role": "clinic", "state_dir": "\(dir)", "vault_backend": "keyfile"},
             "sync": {"base_url": "\(standin.baseURL)"},
             "sponsors": [{"prefix": "AB", "sponsor_id": "sponsor-ab", "backend_url": "\(standin.baseURL)"}],
             "enrollment": {"retry_delay": 0.05, "request_timeout": 5}}
            """.utf8).write(to: URL(fileURLWithPath: config))
        func edge(_ arguments: [String], input: String? = nil) throws -> EdgeProcess.Outcome {
            try EdgeProcess.run(arguments + ["--config", config], environment: ["EDGE_STATE_DIR": dir], input: input.map { Data($0.utf8) })
        }
        let vaultArguments = ["--backend", "keyfile"]
        XCTAssertEqual(try EdgeProcess.run(["vault", "put", "sync.token"] + vaultArguments, environment: ["EDGE_STATE_DIR": dir],
                                           input: Data(stationToken.utf8)).status, 0)
        let linked = try edge(["enroll", "-", "--json"], input: "AB-7KX-M4PQR\n")
        XCTAssertEqual(linked.status, 0, linked.stderr)
        XCTAssertEqual(try document(linked.stdout)["state"] as? String, "STUDY_START_PENDING")
        let id = try XCTUnwrap(try document(linked.stdout)["id"] as? Int)
        let credential = "enrollment.\(id).access"

        // `edge sync status`: waiting for approval, no fault, no release advice.
        let status = try edge(["sync", "status"])
        XCTAssertEqual(status.status, 0, "a Study Start wait is not a fault: " + status.stdout)
        XCTAssertTrue(status.stdout.contains("waiting for approval: entries for \(credential) since "), status.stdout)
        XCTAssertFalse(status.stdout.contains("sync release"), status.stdout)
        let json = try edge(["sync", "status", "--json"])
        try validate(json.stdout, "sync-status.schema.json")
        let syncDocument = try document(json.stdout)
        XCTAssertEqual(syncDocument["needs_attention"] as? Bool, false)
        let hold = try XCTUnwrap((syncDocument["holds"] as? [[String: Any]])?.first)
        XCTAssertEqual(hold["kind"] as? String, "study_start")
        XCTAssertEqual(hold["waiting_for"] as? String, "approval")
        XCTAssertEqual(hold["fault"] as? Bool, false)
        XCTAssertEqual(hold["operator_release"] as? Bool, false)

        // `edge status`: shown as waiting, not under what is missing, and without advice to release.
        let station = try edge(["status"])
        XCTAssertTrue(station.stdout.contains("  waiting for approval: \(credential) - "), station.stdout)
        XCTAssertFalse(station.stdout.contains("sync release"), station.stdout)
        XCTAssertFalse(station.stdout.contains("missing: credential"), station.stdout)
        let stationJSON = try edge(["status", "--json"])
        try validate(stationJSON.stdout, "station-status.schema.json")
        let stationHold = try XCTUnwrap(((try document(stationJSON.stdout)["queue"] as? [String: Any])?["holds"] as? [[String: Any]])?.first)
        XCTAssertEqual(stationHold["waiting_for"] as? String, "approval")
        XCTAssertNil(stationHold["release"])
        XCTAssertFalse(((try document(stationJSON.stdout)["missing"] as? [String]) ?? []).contains { $0.contains(credential) })

        // Release is refused although the vault has the enrollment's token (ENR-13), and nothing is sent.
        let refused = try edge(["sync", "release", credential] + vaultArguments)
        XCTAssertEqual(refused.status, 3, refused.stdout + refused.stderr)
        XCTAssertEqual(refused.stderr, "edge: \(credential) is not released by hand: its entries are waiting for approval "
                       + "(study_start: study start pending (ENR-13)), and only that sends them. Nothing was released.\n")
        let run = try edge(["sync", "run", "--no-pull"] + vaultArguments)
        XCTAssertEqual(run.status, 1, "the held entries remain: " + run.stdout)
        XCTAssertTrue(try sentKeys(standin).isEmpty, "an enrollment's data went out while STUDY_START_PENDING")
        XCTAssertEqual((try document(try edge(["sync", "status", "--json"]).stdout)["holds"] as? [Any])?.count, 1)

        // The approval releases it: the same run now sends the enrollment's history.
        try standin.control("POST", "/_standin/approve", json: #"{"enrollment_id": "enr-ab-0001"}"#)
        XCTAssertTrue(try edge(["enroll", "check", String(id)]).stdout.contains("enrollment \(id): ENROLLED"))
        let approved = try edge(["sync", "run", "--no-pull"] + vaultArguments)
        XCTAssertEqual(approved.status, 0, approved.stdout + approved.stderr)
        XCTAssertFalse(try sentKeys(standin).isEmpty)
    }
}
