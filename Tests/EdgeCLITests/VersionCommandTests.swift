import EdgeCore
import EdgeTestSupport
import Foundation
import XCTest

/// What runs where (AGT-9, issue #33): `edge --version`, the version in `edge status`, and a
/// command refusing a database a newer edge migrated, with the real binary.
final class VersionCommandTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try temporaryDirectory(prefix: "edge-version").url
    }

    /// "0.4.0 (commit unknown)" from `swift build`; packaging/build-deb links the commit in
    /// (.ci/check-deb checks that one), so either may be the binary under test.
    func testVersionNamesTheReleaseAndTheCommit() throws {
        let outcome = try EdgeProcess.run(["--version"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let line = outcome.stdout.trimmingCharacters(in: .newlines)
        XCTAssertNotNil(line.wholeMatch(of: #/(\d+\.\d+\.\d+) \(commit (unknown|[0-9a-f]{7,40}(-dirty)?)\)/#), line)
        XCTAssertTrue(line.hasPrefix(BuildInfo.packageVersion + " (commit "), line)
    }

    /// How `edge` is linked (Package.swift, issue #32): no symbol of its own exported for dladdr,
    /// which the Swift runtime would scan at every start, and the relative relocations packed.
    func testTheExecutableExportsNoSymbolsAndPacksItsRelocations() throws {
        let binary = try EdgeProcess.executable()
        let readelf = URL(fileURLWithPath: "/usr/bin/readelf")     // binutils, which packaging/build-deb needs too
        let symbols = try EdgeProcess.run(executable: readelf, ["--dyn-syms", "--wide", binary.path])
        XCTAssertEqual(symbols.status, 0, symbols.stderr)
        // Defined dynamic symbols (section index not UND): a few of the C start files' at most.
        // (Bites in a static-runtime build, whose toolchain default exports ~46,000; a build with
        // the shared runtime exports few either way, and the RELR check below covers it.)
        let defined = symbols.lines.filter { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            return fields.count >= 8 && fields[0].dropLast().allSatisfy(\.isNumber) && fields[0].hasSuffix(":")
                && fields[6] != "UND" && fields[3] != "SECTION"
        }
        XCTAssertLessThan(defined.count, 100, defined.prefix(20).joined(separator: "\n"))
        let dynamic = try EdgeProcess.run(executable: readelf, ["--dynamic", "--wide", binary.path])
        XCTAssertEqual(dynamic.status, 0, dynamic.stderr)
        XCTAssertTrue(dynamic.lines.contains { $0.contains("(RELR)") }, dynamic.stdout)
    }

    func testStatusNamesTheEdgeThatAnswers() throws {
        let config = directory.appendingPathComponent("edge.json")
        try Data(#"{"station": {"name": "dock-1", "state_dir": "\#(directory.appendingPathComponent("state").path)"}}"#.utf8).write(to: config)
        let version = try EdgeProcess.run(["--version"]).stdout.trimmingCharacters(in: .newlines)

        let text = try EdgeProcess.run(["status", "--config", config.path])
        XCTAssertEqual(text.status, 1, text.stderr)  // the agent does not run: something is missing
        XCTAssertTrue(text.lines.contains("edge: \(version)"), text.stdout)

        let json = try EdgeProcess.run(["status", "--json", "--config", config.path])
        let file = directory.appendingPathComponent("status.json")
        try Data(json.stdout.utf8).write(to: file)
        XCTAssertEqual(try SchemaValidator.validate(jsonLines: file, against: EdgeProcess.packageRoot.appendingPathComponent("models/station-status.schema.json").path,
                                                    wholeFile: true), 1)
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let edge = try XCTUnwrap(document["edge"] as? [String: String])
        XCTAssertEqual("\(edge["version"] ?? "") (commit \(edge["commit"] ?? ""))", version)
        // Not running: no agent's edge to name.
        XCTAssertNil((document["agent"] as? [String: Any])?["edge"] as? [String: String])
    }

    /// A downgrade: the station's database holds a migration this edge does not know (recorded
    /// the way GRDB records the ones it applies). The command refuses it, naming the migration,
    /// and writes nothing; without that migration the same file is used as before.
    func testACommandRefusesADatabaseANewerEdgeMigrated() throws {
        let database = directory.appendingPathComponent("edge.sqlite").path
        func edge(_ arguments: [String], input: String? = nil) throws -> EdgeProcess.Outcome {
            try EdgeProcess.run(arguments, environment: ["EDGE_DATABASE": database], input: input.map { Data($0.utf8) })
        }
        let queued = try edge(["sync", "enqueue", "po/PO-2026-00042", "--kind", "scan", "--json-file", "-"], input: #"{"text":"PO-2026-00042"}"#)
        XCTAssertEqual(queued.status, 0, queued.stderr)
        try Command.run(["sqlite3", database, "INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-a-newer-edge')"])
        let before = try Data(contentsOf: URL(fileURLWithPath: database))

        let refused = try edge(["sync", "status"])
        XCTAssertEqual(refused.status, 2, refused.stdout)
        XCTAssertTrue(refused.stderr.contains("was written by a newer edge (migration v99-from-a-newer-edge)"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("install that version or newer"), refused.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: database)), before)

        try Command.run(["sqlite3", database, "DELETE FROM grdb_migrations WHERE identifier = 'v99-from-a-newer-edge'"])
        let status = try edge(["sync", "status", "--json"])
        XCTAssertEqual(status.status, 0, status.stderr)
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(document["depth"] as? Int, 1, status.stdout)
    }
}
