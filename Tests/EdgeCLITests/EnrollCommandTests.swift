import EdgePayloads
import EdgeStandin
import EdgeTestSupport
import Foundation
import XCTest

/// `edge enroll`, `edge enroll check|cancel` and `edge enrollments` against the stand-in portal
/// (edge-standin with its demo linking codes): the coordinator's messages word for word, the
/// documented exit statuses, JSON valid against models/enrollments.schema.json, and no code or
/// token in anything edge printed (ENR-8).
final class EnrollCommandTests: XCTestCase {
    func testTheClinicFlowFromTheCommandLine() throws {
        let standin = try StandinProcess(token: "clinic-cli-\(UUID().uuidString)", extraArguments: ["--seed-demo-data"])
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("edge-enroll-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer {
            try? FileManager.default.removeItem(at: dir)
            try? FileManager.default.removeItem(atPath: dir.path + "-keys")  // the vault keys beside the state directory
        }
        let config = dir.appendingPathComponent("edge.json").path
        try Data("""
            {"station": {"role": "clinic", "state_dir": "\(dir.path)", "vault_backend": "keyfile"},
             "sponsors": [{"prefix": "AB", "sponsor_id": "sponsor-ab", "backend_url": "\(standin.baseURL)"},
                          {"prefix": "CD", "sponsor_id": "sponsor-cd", "backend_url": "\(standin.baseURL)"}],
             "enrollment": {"retry_delay": 0.05, "request_timeout": 5}}
            """.utf8).write(to: URL(fileURLWithPath: config))
        var printed = ""
        func edge(_ arguments: [String], input: String? = nil) throws -> EdgeProcess.Outcome {
            let outcome = try EdgeProcess.run(arguments + ["--config", config], environment: ["EDGE_STATE_DIR": dir.path], input: input.map { Data($0.utf8) })
            printed += outcome.stdout + outcome.stderr
            return outcome
        }
        let schema = EdgeProcess.packageRoot.appendingPathComponent("models/enrollments.schema.json").path
        func validate(_ json: String) throws {
            let file = dir.appendingPathComponent("doc.json")
            try Data(json.utf8).write(to: file)
            XCTAssertEqual(try SchemaValidator.validate(jsonLines: file, against: schema, wholeFile: true), 1)
        }

        // ENR-3: refused before anything is sent, exit 3.
        let lookAlike = try edge(["enroll", "AB-7KX-M4PQ1"])
        XCTAssertEqual(lookAlike.status, 3)
        XCTAssertEqual(lookAlike.stderr, "edge: Please check your code. The characters I, 1, O, 0, S, 5, Z, 2 are not used in linking codes.\n")
        XCTAssertEqual(try edge(["enroll", "AB-7KX"]).stderr, "edge: 5/10 characters\n")
        XCTAssertEqual(try edge(["enroll", "XY-7KX-M4PQR"]).stderr,
                       "edge: This linking code is not recognized. Please verify you have the correct code and try again.\n")

        // ENR-5: refused by the portal, exit 4, one message for expired, unknown and used.
        let expired = try edge(["enroll", "AB-4HX-PQR7K"])
        XCTAssertEqual(expired.status, 4)
        XCTAssertEqual(expired.stderr, "edge: Invalid linking code. Please check the code and try again, or contact your study coordinator for a new code.\n")

        // A server error: exit 5, not retried.
        try standin.control("POST", "/_standin/faults", json: #"{"faults": [{"kind": "status", "path_prefix": "/api/enrollment/link", "times": 1, "parameters": {"status": 502}}]}"#)
        let server = try edge(["enroll", "CD-3HJ-6K8W9"])
        XCTAssertEqual(server.status, 5)
        XCTAssertEqual(server.stderr, "edge: Server error. Please try again later or contact your study coordinator.\n")

        // Linked, the code read from stdin (out of the process list): STUDY_START_PENDING with
        // the sponsor's display, valid JSON.
        let linked = try edge(["enroll", "-", "--json"], input: "ab 7kx m4pqr\n")
        XCTAssertEqual(linked.status, 0, linked.stderr)
        try validate(linked.stdout)
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(linked.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(document["state"] as? String, "STUDY_START_PENDING")
        XCTAssertEqual(document["masked_code"] as? String, "AB-***-*****")
        XCTAssertEqual((document["sponsor"] as? [String: Any])?["name"] as? String, "Study Sponsor AB")
        let id = try XCTUnwrap(document["id"] as? Int)

        // ENR-11: a pending enrollment cannot be cancelled (only LINKING_PENDING can): exit 6.
        XCTAssertEqual(try edge(["enroll", "cancel", String(id)]).status, 6)
        // Approved by the investigator; `check` sees it now.
        XCTAssertEqual(try edge(["enroll", "check", String(id)]).stdout.contains("STUDY_START_PENDING"), true)
        _ = try standin.control("POST", "/_standin/approve", json: #"{"enrollment_id": "enr-ab-0001"}"#)
        let checked = try edge(["enroll", "check", String(id)])
        XCTAssertEqual(checked.status, 0, checked.stderr)
        XCTAssertTrue(checked.stdout.contains("enrollment \(id): ENROLLED"), checked.stdout)
        XCTAssertTrue(checked.stdout.contains("STUDY_START_PENDING -> ENROLLED  Study Start approved (status check)"), checked.stdout)

        // The list, as text and as JSON.
        let list = try edge(["enrollments", "--json"])
        XCTAssertEqual(list.status, 0)
        try validate(list.stdout)
        let all = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any])?["enrollments"] as? [[String: Any]])
        XCTAssertEqual(all.map { $0["state"] as? String }, ["PERSONAL_USE", "PERSONAL_USE", "ENROLLED"])
        XCTAssertTrue(try edge(["enrollments"]).stdout.contains("Study Sponsor AB"))

        // ENR-7: the window is full after five attempts sent (expired, server error, linked, and two more).
        XCTAssertEqual(try edge(["enroll", "AB-4HX-PQR7K"]).status, 4)
        XCTAssertEqual(try edge(["enroll", "AB-4HX-PQR7K"]).status, 4)
        let limited = try edge(["enroll", "AB-4HX-PQR7K"])
        XCTAssertEqual(limited.status, 5)
        XCTAssertTrue(limited.stderr.hasPrefix("edge: Too many attempts. Please wait 5 minutes before trying again. ("), limited.stderr)

        // Exit statuses are documented.
        let help = try EdgeProcess.run(["enroll", "link", "--help"])
        XCTAssertTrue(help.stdout.contains("Exit status: 0 done"), help.stdout)

        // ENR-8: no code, in any form, and no token in anything edge printed.
        for code in ["AB7KXM4PQR", "AB-7KX-M4PQR", "AB4HXPQR7K", "AB-4HX-PQR7K", "CD3HJ6K8W9", "ab 7kx m4pqr"] {
            XCTAssertFalse(printed.contains(code), "\(code.prefix(2)) code printed")
        }
        XCTAssertNil(printed.range(of: #"\b(at|rt)\.[A-Za-z0-9_-]{8,}"#, options: .regularExpression), "a token printed")
    }

    /// Issue #28: every carrier SCN-6 accepts enrolls from the argument, from stdin and from a
    /// camera showing its QR code (a `replay:` camera of qrencode's image); a carrier with a
    /// look-alike or an unknown prefix in its code gets ENR-3's message for that code (exit 3) on
    /// each path, nothing sent.
    func testEveryCarrierEnrollsFromTheArgumentStdinAndTheCamera() throws {
        let standin = try StandinProcess(token: "clinic-carriers-\(UUID().uuidString)", extraArguments: ["--seed-demo-data"])
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("edge-carriers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("edge.json").path
        try Data("""
            {"station": {"role": "clinic", "state_dir": "\(dir.path)", "vault_backend": "keyfile"},
             "sponsors": [{"prefix": "AB", "sponsor_id": "sponsor-ab", "backend_url": "\(standin.baseURL)"}],
             "enrollment": {"retry_delay": 0.05, "request_timeout": 5, "attempt_limit": 100}}
            """.utf8).write(to: URL(fileURLWithPath: config))
        var printed = ""
        func edge(_ arguments: [String], input: String? = nil) throws -> EdgeProcess.Outcome {
            let outcome = try EdgeProcess.run(arguments + ["--config", config, "--json"], environment: ["EDGE_STATE_DIR": dir.path], input: input.map { Data($0.utf8) })
            printed += outcome.stdout + outcome.stderr
            return outcome
        }
        func linkRequests() throws -> Int {
            let all = try XCTUnwrap(try JSONSerialization.jsonObject(with: standin.control("GET", "/_standin/requests")) as? [[String: Any]])
            return all.filter { $0["path"] as? String == "/api/enrollment/link" }.count
        }
        func linkedServerID(_ outcome: EdgeProcess.Outcome) -> String? {
            (try? JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])?["server_enrollment_id"] as? String
        }

        for carrier in LinkingCodeCarriers.all(DemoData.linkingCode) {
            let image = try LinkingCodeCarriers.qrImage(carrier.text, named: carrier.name, in: dir.path)
            for (path, outcome) in [("argument", try edge(["enroll", carrier.text])),
                                    ("stdin", try edge(["enroll", "-"], input: carrier.text + "\n")),
                                    ("camera", try edge(["enroll", "--camera", "replay:" + image, "--timeout", "60"]))] {
                XCTAssertEqual(outcome.status, 0, "\(carrier) from the \(path): \(outcome.stderr)")
                XCTAssertEqual(linkedServerID(outcome), "enr-ab-0001", "\(carrier) from the \(path): \(outcome.stdout)")
            }
        }
        let sent = try linkRequests()
        XCTAssertEqual(sent, 15)

        for (bad, message) in [("AB7KXM4PQ0", LinkingCodeError.lookAlikeMessage), ("XY7KXM4PQR", LinkingCodeError.unknownPrefixMessage)] {
            for carrier in LinkingCodeCarriers.all(bad) {
                var outcomes = [("argument", try edge(["enroll", carrier.text])), ("stdin", try edge(["enroll", "-"], input: carrier.text + "\n"))]
                // The camera reads on until its time is up, then says why the code it saw cannot be used.
                if bad.hasPrefix("XY") {
                    let image = try LinkingCodeCarriers.qrImage(carrier.text, named: "bad-" + carrier.name, in: dir.path)
                    outcomes.append(("camera", try edge(["enroll", "--camera", "replay:" + image, "--timeout", "3"])))
                }
                for (path, outcome) in outcomes {
                    XCTAssertEqual(outcome.status, 3, "\(carrier) \(bad) from the \(path): \(outcome.stderr)")
                    XCTAssertTrue(outcome.stderr.hasSuffix("edge: \(message)\n"), "\(carrier) \(bad) from the \(path): \(outcome.stderr)")
                }
            }
        }
        XCTAssertEqual(try linkRequests(), sent, "a refused code was sent")
        for secret in [DemoData.linkingCode, "AB-7KX-M4PQR", "AB7KXM4PQ0", "AB-7KX-M4PQ0", "XY7KXM4PQR", "XY-7KX-M4PQR"] {
            XCTAssertFalse(printed.contains(secret), "a code printed")
        }
    }
}
