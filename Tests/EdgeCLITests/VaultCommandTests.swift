import Foundation
import XCTest

final class VaultCommandTests: XCTestCase {
    private var dir = ""
    private let secret = "tok-4f9c1e77d2-very-secret"

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("edge-vault-cli-\(UUID().uuidString)").path
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: dir)
    }

    private func edge(_ args: [String], input: String? = nil) throws -> EdgeProcess.Outcome {
        try EdgeProcess.run(args + ["--dir", dir], input: input.map { Data($0.utf8) })
    }

    func testPutGetStatusRemoveWithNoSecretInOutputOrArguments() throws {
        var everything = ""
        let put = try edge(["vault", "put", "access-token"], input: secret + "\n")
        XCTAssertEqual(put.status, 0, put.stderr)
        let get = try edge(["vault", "get", "access-token"])
        XCTAssertEqual(get.status, 0)
        XCTAssertEqual(get.stdout, secret, "value byte for byte, trailing newline from echo dropped at put")
        let status = try edge(["vault", "status"])
        let json = try edge(["vault", "status", "--json"])
        XCTAssertTrue(status.stdout.contains("access-token") && status.stdout.contains("keyfile"), status.stdout)
        let doc = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(doc["backend"] as? String, "keyfile")
        let rm = try edge(["vault", "rm", "access-token"])
        XCTAssertEqual(rm.status, 0)
        let gone = try edge(["vault", "get", "access-token"])
        XCTAssertEqual(gone.status, 1)
        XCTAssertTrue(gone.stderr.contains("no secret named access-token"), gone.stderr)
        for o in [put, status, json, rm, gone] { everything += o.stdout + o.stderr }
        XCTAssertFalse(everything.contains(secret), "a secret value reached CLI output")
        // Nor is it anywhere on disk in clear.
        let files = try FileManager.default.subpathsOfDirectory(atPath: dir)
        for f in files {
            if let data = FileManager.default.contents(atPath: dir + "/" + f) {
                XCTAssertNil(data.range(of: Data(secret.utf8)), f)
            }
        }
    }

    func testDeviceIDIsStableAndUUIDv4() throws {
        let a = try edge(["device-id"]), b = try edge(["device-id"])
        XCTAssertEqual(a.status, 0, a.stderr)
        XCTAssertEqual(a.stdout, b.stdout)
        XCTAssertNotNil(a.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            .range(of: "^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$", options: .regularExpression))
    }

    func testRotateKeepsValuesAndWipeNeedsConfirmation() throws {
        XCTAssertEqual(try edge(["vault", "put", "a"], input: "one").status, 0)
        let rotate = try edge(["vault", "rotate"])
        XCTAssertEqual(rotate.status, 0, rotate.stderr)
        XCTAssertTrue(rotate.stdout.contains("2 secrets rewritten"), rotate.stdout)
        XCTAssertEqual(try edge(["vault", "get", "a"]).stdout, "one")
        XCTAssertEqual(try edge(["vault", "wipe"]).status, 64)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir))
        XCTAssertEqual(try edge(["vault", "wipe", "--yes"]).status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir))
    }

    func testBadNameIsAClearError() throws {
        let out = try edge(["vault", "put", "../etc/passwd"], input: "x")
        XCTAssertEqual(out.status, 1)
        XCTAssertTrue(out.stderr.contains("secret names are"), out.stderr)
    }
}
