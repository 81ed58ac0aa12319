import EdgeAgent
import EdgeStore
import EdgeTestSupport
import Foundation
import XCTest

/// `edge sync salvage` and `edge status` with the real binary (issue #30 item 3): a station whose
/// database was damaged while it was stopped starts anyway (`TestStation`, in process), the CLI's
/// status names the moved file and the command to run, the command re-queues what it can read into
/// the running station's database, and the stand-in applies every re-queued key once, also after
/// a second salvage of the same file.
final class SyncSalvageCommandTests: XCTestCase {
    private func document(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
    }

    private func validateStatus(_ json: String, in directory: String) throws {
        let file = URL(fileURLWithPath: directory + "/status-\(UUID().uuidString).json")
        try Data(json.utf8).write(to: file)
        XCTAssertEqual(try SchemaValidator.validate(jsonLines: file, against: EdgeProcess.packageRoot.appendingPathComponent("models/station-status.schema.json").path,
                                                    wholeFile: true), 1)
    }

    func testADamagedDatabaseIsSalvagedIntoTheRunningStationAndAppliedOnce() async throws {
        try await withStopping(TestStation(role: "dock", sections: #""ui": {"enabled": false}"#, prefix: "edge-salvage-cli")) { station in
            let config = station.configPath
            // Queued with the agent stopped, as an operator or a script does.
            var keys: [String] = []
            let filler = String(repeating: "z", count: 300)
            for n in 1...40 {
                let queued = try EdgeProcess.run(["sync", "enqueue", "po/\(n % 3)", "--kind", "scan", "--json-file", "-", "--json", "--config", config],
                                                 input: Data(#"{"marker":"cli-\#(n)-","filler":"\#(filler)"}"#.utf8))
                XCTAssertEqual(queued.status, 0, queued.stderr)
                keys.append(try XCTUnwrap(try document(queued.stdout)["idempotency_key"] as? String))
            }
            let database = StationPaths.resolve(try station.configuration(), environment: [:]).database
            try Command.run(["sqlite3", database, "PRAGMA wal_checkpoint(TRUNCATE)"])
            try DatabaseDamage.flipPageType(database, pageHolding: "cli-20-")
            let broken = try EdgeProcess.run(["sync", "status", "--config", config])
            XCTAssertEqual(broken.status, 2, "the CLI reports a damaged database and leaves it where it is")

            try station.start()
            let status = try EdgeProcess.run(["status", "--json", "--config", config])
            XCTAssertEqual(status.status, 1, status.stderr)
            try validateStatus(status.stdout, in: station.directory.path)
            let damaged = try XCTUnwrap((try document(status.stdout)["damaged_databases"] as? [[String: Any]])?.first)
            let moved = try XCTUnwrap(damaged["path"] as? String)
            XCTAssertTrue(moved.hasPrefix(database + ".damaged-"), moved)
            XCTAssertEqual(damaged["salvage_command"] as? String, "edge sync salvage \(moved)")
            XCTAssertNil(damaged["salvaged"])
            let missing = try XCTUnwrap(try document(status.stdout)["missing"] as? [String])
            XCTAssertTrue(missing.contains { $0.contains("edge sync salvage \(moved)") }, "\(missing)")
            let text = try EdgeProcess.run(["status", "--config", config])
            XCTAssertTrue(text.stdout.contains("damaged database kept: \(moved), not salvaged"), text.stdout)

            // Salvaged while the agent runs; the page that was flipped is lost and listed.
            let salvage = try EdgeProcess.run(["sync", "salvage", moved, "--config", config])
            XCTAssertEqual(salvage.status, 1, "some entries were on the damaged page\n\(salvage.stdout)\(salvage.stderr)")
            let summary = try XCTUnwrap(salvage.lines.first)
            XCTAssertTrue(summary.hasPrefix("salvaged \(moved): "), summary)
            let lost = salvage.lines.filter { $0.hasPrefix("unreadable: outbox entry ") }
            XCTAssertFalse(lost.isEmpty)
            let lostKeys = Set(keys.filter { key in lost.contains { $0.hasSuffix("key \(key)") } })
            XCTAssertEqual(lostKeys.count, lost.count, salvage.stdout)
            XCTAssertTrue(summary.contains("\(keys.count - lost.count) entries re-queued"), summary)
            let recovered = keys.filter { !lostKeys.contains($0) }

            try await eventually("the re-queued entries applied") {
                recovered.allSatisfy { station.standin.backend.applications(ofKey: $0) == 1 }
            }
            for key in lostKeys { XCTAssertEqual(station.standin.backend.applications(ofKey: key), 0) }

            let after = try EdgeProcess.run(["status", "--json", "--config", config])
            try validateStatus(after.stdout, in: station.directory.path)
            let salvaged = try XCTUnwrap((try document(after.stdout)["damaged_databases"] as? [[String: Any]])?.first?["salvaged"] as? [String: Any])
            XCTAssertEqual(salvaged["requeued"] as? Int, recovered.count)
            XCTAssertEqual(salvaged["unreadable"] as? Int, lost.count)
            XCTAssertFalse(((try document(after.stdout)["missing"] as? [String]) ?? []).contains { $0.hasPrefix("database:") }, after.stdout)

            // Again: what was delivered meanwhile is queued again and answered as a duplicate.
            let again = try EdgeProcess.run(["sync", "salvage", moved, "--config", config])
            XCTAssertEqual(again.status, 1)
            try await eventually("the second salvage's entries answered as duplicates") {
                recovered.allSatisfy { key in station.standin.applied.first { $0.idempotencyKey == key }?.replays == 1 }
            }
            for key in recovered { XCTAssertEqual(station.standin.backend.applications(ofKey: key), 1) }
        }
    }

    func testWhatCannotBeSalvagedIsRefusedWithTheReason() throws {
        let directory = try TemporaryDirectory(prefix: "edge-salvage-refused")
        let database = directory.path + "/edge.sqlite"
        let png = directory.path + "/photo.sqlite"
        try DatabaseDamage.replaceWithPNG(png)

        let wrong = try EdgeProcess.run(["sync", "salvage", png, "--database", database])
        XCTAssertEqual(wrong.status, 1)
        XCTAssertTrue(wrong.stderr.hasPrefix("edge: Nothing can be read from \(png): it is not a SQLite database"), wrong.stderr)

        let absent = try EdgeProcess.run(["sync", "salvage", directory.path + "/absent.sqlite", "--database", database])
        XCTAssertEqual(absent.status, 2)
        XCTAssertTrue(absent.stderr.contains("No such file"), absent.stderr)

        let own = try EdgeProcess.run(["sync", "salvage", database, "--database", database])
        XCTAssertEqual(own.status, 2)
        XCTAssertTrue(own.stderr.contains("the station's own database"), own.stderr)
    }
}
