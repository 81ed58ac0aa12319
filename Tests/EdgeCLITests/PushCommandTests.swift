import EdgeTestSupport
import Foundation
import XCTest

/// `edge push`: preferences, devices, badges, status and its schema, refusals and exit codes;
/// `edge sync run` handing pulled push changes to the relay; and a notification sent through
/// the FCM stand-in over HTTP/2 with the service account from the vault.
final class PushCommandTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try temporaryDirectory(prefix: "edge-push-cli").url
    }

    private var database: String { directory.appendingPathComponent("edge.sqlite").path }
    private var vault: [String] { ["--dir", directory.appendingPathComponent("vault").path, "--backend", "keyfile"] }

    private func edge(_ arguments: [String], input: String? = nil, config: String? = nil) throws -> EdgeProcess.Outcome {
        // No configuration unless given (an empty EDGE_CONFIG counts as none).
        try EdgeProcess.run(arguments, environment: ["EDGE_DATABASE": database, "EDGE_CONFIG": config ?? ""], input: input.map { Data($0.utf8) })
    }

    func testPreferencesDevicesBadgeAndStatus() throws {
        let defaults = try edge(["push", "prefs", "ana"])
        XCTAssertEqual(defaults.status, 0, defaults.stderr)
        XCTAssertTrue(defaults.stdout.contains("quiet hours 22:00-07:00; bypassed by URGENT and APPROVAL_PENDING"), defaults.stdout)

        let set = try edge(["push", "prefs", "ana", "--zone", "America/New_York", "--quiet", "21:30-06:45", "--disable", "budget_warning", "--json"])
        XCTAssertEqual(set.status, 0, set.stderr)
        let prefs = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(set.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(prefs["time_zone"] as? String, "America/New_York")
        XCTAssertEqual(prefs["quiet_start"] as? String, "21:30")
        XCTAssertEqual(prefs["disabled_types"] as? [String], ["BUDGET_WARNING"])

        // Refused configurations say why and change nothing (PSH-3).
        let empty = try edge(["push", "prefs", "ana", "--quiet", "22:00-22:00"])
        XCTAssertEqual(empty.status, 1)
        XCTAssertTrue(empty.stderr.hasPrefix("edge: Quiet hours from 22:00 to 22:00 are empty"), empty.stderr)
        let long = try edge(["push", "prefs", "ana", "--quiet", "06:00-03:00"])
        XCTAssertEqual(long.status, 1)
        XCTAssertTrue(long.stderr.contains("at most 20 h are allowed"), long.stderr)
        let zone = try edge(["push", "prefs", "ana", "--zone", "Mars/Olympus_Mons"])
        XCTAssertEqual(zone.status, 1, zone.stderr)
        XCTAssertEqual(try edge(["push", "prefs", "ana", "--push", "maybe"]).status, 64)
        XCTAssertTrue(try edge(["push", "prefs", "ana"]).stdout.contains("zone America/New_York"))

        // Tokens come from stdin and are shown shortened; a 4th device retires the oldest.
        for n in 1...4 {
            let added = try edge(["push", "devices", "ana", "--add", n == 4 ? "ios" : "android"], input: "fcm-token-\(n)-abcdefghijklmnop\n")
            XCTAssertEqual(added.status, 0, added.stderr)
            XCTAssertEqual(added.stdout, "registered fcm-toke… (\(n == 4 ? "IOS" : "ANDROID")) for ana\n")
        }
        let devices = try edge(["push", "devices", "ana", "--json"])
        let list = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(devices.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(list.count, 3)
        XCTAssertEqual(list.first?["platform"] as? String, "IOS")
        XCTAssertFalse(devices.stdout.contains("abcdefgh"), "tokens are never printed whole")
        XCTAssertEqual(try edge(["push", "devices", "ana", "--retire"], input: "fcm-token-4-abcdefghijklmnop").stdout, "retired fcm-toke…\n")

        // Recorded without sending; an unknown type is a usage error.
        let queued = try edge(["push", "send", "--user", "ana", "--type", "kpi_alert", "--title", "Dock 3 below target", "--priority", "urgent", "--no-send"])
        XCTAssertEqual(queued.status, 0, queued.stderr)
        XCTAssertTrue(queued.stdout.hasPrefix("notification 1 for ana: QUEUED, badge 1"), queued.stdout)
        let off = try edge(["push", "send", "--user", "ana", "--type", "BUDGET_WARNING", "--title", "Budget at 90 %"])
        XCTAssertEqual(off.status, 1)
        XCTAssertTrue(off.stdout.contains("not sent (TYPE_DISABLED)") || off.stdout.contains("not sent ("), off.stdout)
        XCTAssertEqual(try edge(["push", "send", "--user", "ana", "--type", "NEWSLETTER", "--title", "x"]).status, 64)
        let noConfig = try edge(["push", "send", "--user", "ana", "--type", "APPROVAL_PENDING", "--title", "Approval needed"])
        XCTAssertEqual(noConfig.status, 0, noConfig.stderr)
        XCTAssertTrue(noConfig.stdout.contains("no push section in the configuration: recorded, not sent"), noConfig.stdout)

        XCTAssertEqual(try edge(["push", "badge", "ana"]).stdout, "2\n")
        XCTAssertEqual(try edge(["push", "badge", "ana", "--reset"]).stdout, "0\n")

        let status = try edge(["push", "status", "--json"])
        XCTAssertEqual(status.status, 0, status.stderr)
        let file = directory.appendingPathComponent("status.json")
        try Data(status.stdout.utf8).write(to: file)
        XCTAssertEqual(try SchemaValidator.validate(jsonLines: file, against: EdgeProcess.packageRoot.appendingPathComponent("models/push-status.schema.json").path), 1)
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        XCTAssertEqual((document["counts"] as? [String: Int])?["QUEUED"], 2)
        XCTAssertEqual((document["counts"] as? [String: Int])?["FAILED"], 1)
        XCTAssertEqual(document["active_devices"] as? Int, 2)
        XCTAssertEqual(document["configured"] as? Bool, false)
        let text = try edge(["push", "status"])
        XCTAssertTrue(text.stdout.contains("QUEUED 2, HELD 0, SENT 0, DELIVERED 0, OPENED 0, FAILED 1"), text.stdout)
    }

    func testPulledPushChangesAreRecordedBySyncRun() throws {
        let token = "push-pull-\(UUID().uuidString)"
        let standin = try StandinProcess(token: token)
        let config = directory.appendingPathComponent("edge.json").path
        try Data(#"{"sync": {"base_url": "\#(standin.baseURL)", "database": "\#(database)"}, "push": {"station_zone": "UTC", "receiving_team": ["dock-lead"]}}"#.utf8)
            .write(to: URL(fileURLWithPath: config))
        XCTAssertEqual(try EdgeProcess.run(["vault", "put", "sync.token"] + vault, input: Data(token.utf8)).status, 0)
        try standin.control("POST", "/_standin/changes", json: #"{"stream": "push:ana", "kind": "NOTIFICATION", "payload": {"user_id": "ana", "type": "APPROVAL_PENDING", "priority": "HIGH", "title": "Approval needed: PO-2026-00077", "body": "Office chairs", "deep_link": "/approvals/77"}}"#)
        try standin.control("POST", "/_standin/changes", json: #"{"stream": "push:ana", "kind": "NOTIFICATION", "payload": {"user_id": "ana", "type": "NEWSLETTER", "priority": "HIGH", "title": "x", "body": ""}}"#)
        // A confirmed GRN raises DELIVERY_UPDATE for the receiving team (RCV-7): the stand-in
        // has no such order without demo data, so it dead-letters; the scan event goes through.
        XCTAssertEqual(try edge(["sync", "enqueue", "po/PO-2026-00042", "--kind", "scan", "--json-file", "-"], input: #"{"text":"PO-2026-00042"}"#, config: config).status, 0)
        let run = try edge(["sync", "run"] + vault, config: config)
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
        XCTAssertTrue(run.stdout.contains("push: 1 notifications recorded, 0 badge events"), run.stdout)
        XCTAssertTrue(run.stderr.contains("refused by the push relay"), run.stderr)
        XCTAssertTrue(run.stderr.contains("NEWSLETTER is not one the relay knows"), run.stderr)
        let status = try edge(["push", "status", "--json"], config: config)
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        XCTAssertEqual((document["counts"] as? [String: Int])?["QUEUED"], 1)
        XCTAssertEqual(try edge(["push", "badge", "ana"], config: config).stdout, "1\n")
    }

    func testConfirmedGRNRaisesADeliveryUpdateForTheReceivingTeam() throws {
        let token = "push-grn-\(UUID().uuidString)"
        let standin = try StandinProcess(token: token, extraArguments: ["--seed-demo-data"])
        let config = directory.appendingPathComponent("edge.json").path
        try Data(#"{"sync": {"base_url": "\#(standin.baseURL)", "database": "\#(database)"}, "push": {"station_zone": "UTC", "receiving_team": ["dock-lead", "buyer"]}}"#.utf8)
            .write(to: URL(fileURLWithPath: config))
        XCTAssertEqual(try EdgeProcess.run(["vault", "put", "sync.token"] + vault, input: Data(token.utf8)).status, 0)
        let grn = #"{"po_number":"PO-2026-00042","confirmed_at":"2026-11-22T09:00:00.000+01:00","lines":[{"line_no":1,"received":120}],"photos":[]}"#
        XCTAssertEqual(try edge(["sync", "enqueue", "po/PO-2026-00042", "--kind", "grn.confirm", "--json-file", "-"], input: grn, config: config).status, 0)
        let run = try edge(["sync", "run", "--no-pull"] + vault, config: config)
        XCTAssertTrue(run.stdout.contains("sent 1,"), run.stdout + run.stderr)
        let status = try edge(["push", "status", "--json"], config: config)
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        // QUEUED, or HELD when the test runs inside the team's quiet hours (22:00-07:00 UTC).
        let counts = try XCTUnwrap(document["counts"] as? [String: Int])
        XCTAssertEqual((counts["QUEUED"] ?? 0) + (counts["HELD"] ?? 0), 2, status.stdout)
        XCTAssertEqual(try edge(["push", "badge", "buyer"], config: config).stdout, "1\n")
    }

    func testSendReachesTheFCMStandinOverHTTP2WithTheServiceAccountFromTheVault() throws {
        let certificates = try TestCertificates()
        let account = directory.appendingPathComponent("sa.json").path
        let standin = try StandinProcess(token: "unused", extraArguments: ["--tls-cert", certificates.serverCertificate, "--tls-key", certificates.serverKey,
                                                                           "--fcm-service-account", account])
        let config = directory.appendingPathComponent("edge.json").path
        try Data(#"{"push": {"endpoint": "\#(standin.baseURL)", "ca_file": "\#(certificates.caCertificate)", "station_zone": "UTC"}}"#.utf8)
            .write(to: URL(fileURLWithPath: config))
        // The stand-in writes the account once it listens.
        for _ in 0..<100 where !FileManager.default.fileExists(atPath: account) { Thread.sleep(forTimeInterval: 0.02) }
        let key = try String(contentsOfFile: account, encoding: .utf8)
        XCTAssertEqual(try EdgeProcess.run(["vault", "put", "push.service-account"] + vault, input: Data(key.utf8)).status, 0)
        XCTAssertEqual(try edge(["push", "devices", "ana", "--add", "android"], input: "fcm-registration-token-ana", config: config).status, 0)

        let sent = try edge(["push", "send", "--user", "ana", "--type", "APPROVAL_PENDING", "--priority", "high", "--title", "Approval needed: PO-2026-00077",
                             "--link", "/approvals/77"] + vault, config: config)
        XCTAssertEqual(sent.status, 0, sent.stdout + sent.stderr)
        XCTAssertTrue(sent.stdout.contains("sent 1, failed 0, waiting to retry 0"), sent.stdout)
        XCTAssertTrue(sent.stdout.hasSuffix("notification 1: SENT\n"), sent.stdout)

        // A dead token: FCM says UNREGISTERED, the device is retired, the notification fails.
        try curl(standin, certificates, "POST", "/_standin/fcm/faults", #"{"kind": "unregistered", "token": "fcm-registration-token-ana"}"#)
        let dead = try edge(["push", "send", "--user", "ana", "--type", "KPI_ALERT", "--priority", "urgent", "--title", "Dock 3 below target"] + vault, config: config)
        XCTAssertEqual(dead.status, 1)
        XCTAssertTrue(dead.stdout.contains("device tokens retired 1"), dead.stdout)
        XCTAssertEqual(try edge(["push", "devices", "ana", "--json"], config: config).stdout, "[]\n")

        let received = try JSONSerialization.jsonObject(with: try curl(standin, certificates, "GET", "/_standin/fcm/messages")) as? [[String: Any]]
        XCTAssertEqual(received?.count, 2)
        let first = received?.first?["message"] as? [String: Any]
        XCTAssertEqual(first?["token"] as? String, "fcm-registration-token-ana")
        XCTAssertEqual((first?["data"] as? [String: String])?["deep_link"], "/approvals/77")
        // The key never reaches output.
        XCTAssertFalse((sent.stdout + sent.stderr + dead.stdout + dead.stderr).contains("PRIVATE KEY"))
    }

    /// A control call with the curl CLI (the stand-in is HTTPS with the test CA).
    @discardableResult
    private func curl(_ standin: StandinProcess, _ certificates: TestCertificates, _ method: String, _ path: String, _ json: String? = nil) throws -> Data {
        var arguments = ["curl", "-sf", "--cacert", certificates.caCertificate, "-X", method, standin.baseURL + path]
        if let json { arguments += ["-H", "Content-Type: application/json", "-d", json] }
        return try Command.run(arguments)
    }
}
