import EdgeAgent
import EdgeContract
import EdgeStandin
import EdgeStation
import EdgeStore
import EdgeTestSupport
import Foundation
import GRDB
import Testing

/// Issue #30 item 3 through the whole station: its database is damaged while it is stopped (a
/// page's bits flipped, the file cut short, a PNG under its name); the next start does not fail
/// but moves the file aside, starts fresh, says so in the log, `edge status` and the kiosk's
/// status; `OutboxSalvage` (what `edge sync salvage` runs) then re-queues the readable entries,
/// and the stand-in applies each key once, including those it had applied before the damage.
@Suite(.serialized) struct DamagedDatabaseTests {
    enum Damage: String, CaseIterable, Sendable, CustomStringConvertible {
        case bitFlip, truncated, wrongFile
        var description: String { rawValue }
    }

    /// `count` entries on `streams` streams, each payload carrying `<marker>-<n>-` and filler.
    static func enqueue(_ outbox: Outbox, _ count: Int, marker: String, streams: Int = 4) throws -> [OutboxEntry] {
        let filler = String(repeating: "f", count: 300)
        return try outbox.database.dbWriter.write { db in
            try (1...count).map { n in
                try outbox.enqueue(db, stream: "\(marker)/\(n % streams)", kind: "scan", payload: Array(#"{"marker":"\#(marker)-\#(n)-","filler":"\#(filler)"}"#.utf8))
            }
        }
    }

    @Test(arguments: Damage.allCases)
    func aDamagedDatabaseIsMovedAsideAndItsEntriesAreAppliedOnce(damage: Damage) async throws {
        // The whole dock (its capabilities' tables in the file too), its kiosk not listening: the
        // kiosk's status is read as its page reads it (`StationContext.status`).
        try await withStopping(TestStation(role: "dock", sections: #""ui": {"enabled": false}"#, prefix: "edge-damaged")) { station in
            // Entries the backend applied without the station hearing it (the connection dropped
            // after the apply): still queued here. Each heads its own stream, so all go out in
            // the sender's first batch (8). Four, not more: should the sender take them one at a
            // time, a fifth dropped answer in a row would pause it before the last was applied.
            station.standin.faults.add(.drop, pathPrefix: APIPath.syncPush)
            // Queued before the agent runs, so its first batch has them all (a batch leases what
            // is due when it starts).
            let first = try station.station().agent
            let applied = try Self.enqueue(first.outbox, 4, marker: "applied", streams: 4)
            station.run(first)
            try await eventually("the stand-in applied the first entries") {
                applied.allSatisfy { station.standin.backend.applications(ofKey: $0.idempotencyKey) == 1 }
            }
            try await station.stopAgent()
            station.standin.faults.clear()
            // Entries queued while the agent was stopped (`edge sync enqueue`), never sent.
            let queued = try Self.enqueue(first.outbox, 60, marker: "queued")
            #expect(try first.outbox.pendingEntries().count == 64)
            let path = first.paths.database
            try await first.outbox.database.dbWriter.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
            try first.outbox.database.close()

            switch damage {
            case .bitFlip: try DatabaseDamage.flipPageType(path, pageHolding: "queued-30-")
            case .truncated: try DatabaseDamage.truncate(path, droppingPages: 2)
            case .wrongFile: try DatabaseDamage.replaceWithPNG(path)
            }

            // The next start moves it aside instead of failing.
            let log = CapturedLog()
            let built = try station.station { $0.logger = log.logger }
            let second = built.agent
            station.run(second)
            #expect(try second.outbox.pendingEntries().isEmpty)
            let moved = try #require(DamagedDatabase.list(beside: path).first)
            #expect(DamagedDatabase.list(beside: path).count == 1)
            #expect(FileManager.default.fileExists(atPath: moved.path))
            #expect(moved.path.hasPrefix(path + ".damaged-"))
            let said = try #require(log.events("store.damaged_moved").first)
            #expect(said.hasPrefix("critical ") && said.contains("moved_to=\(moved.path)"), "\(said)")

            // Status says so, as `edge status --json` and as the kiosk sees it, until salvaged.
            let status = StationStatus.collect(try station.configuration(), environment: [:])
            #expect(status.damagedDatabases.map(\.path) == [moved.path])
            #expect(status.damagedDatabases.first?.salvaged == nil)
            #expect(status.missing.contains { $0.hasPrefix("database: a damaged database was moved aside to \(moved.path)") && $0.contains("edge sync salvage") },
                    "\(status.missing)")
            try PythonCheck.validate(json: Data(try status.json()), schema: PackageFiles.path("models/station-status.schema.json"))
            #expect(second.context.status().missing.contains { $0.hasPrefix("database: a damaged database was moved aside") })

            // The fresh database works and never reuses a sequence the backend may have seen.
            let fresh = try Self.enqueue(second.outbox, 1, marker: "fresh")
            #expect(fresh[0].sequence > (applied + queued).map(\.sequence).max() ?? 0)

            if damage == .wrongFile {
                #expect(throws: StoreError.self) { try OutboxSalvage.salvage(file: moved.path, into: second.outbox) }
                return
            }
            let report = try OutboxSalvage.salvage(file: moved.path, into: second.outbox)
            let lostKeys = Set(report.lost.compactMap(\.idempotencyKey))
            #expect(report.requeued > 0)
            #expect(report.requeued + report.lost.count <= 64)
            if damage == .bitFlip {
                #expect(!report.lost.isEmpty && report.lost.count < 12)
                #expect(report.requeued + report.lost.count == 64)
                #expect(lostKeys.contains(queued[29].idempotencyKey))
            }
            let requeued = Set(try second.outbox.pendingEntries().map(\.idempotencyKey)).subtracting([fresh[0].idempotencyKey])
            #expect(requeued.count == report.requeued)
            #expect(requeued.isDisjoint(with: lostKeys))

            // Every re-queued entry reaches the backend, which applies each key once: the ones it
            // had before are answered as duplicates.
            second.wakePuller()
            try await eventually("the salvaged entries delivered", timeout: .seconds(60)) { try second.outbox.status().depth == 0 }
            for key in requeued.union([fresh[0].idempotencyKey]) {
                #expect(station.standin.backend.applications(ofKey: key) == 1, "\(key)")
            }
            for entry in applied {
                #expect(station.standin.backend.applications(ofKey: entry.idempotencyKey) == 1)
            }
            let replayed = applied.filter { requeued.contains($0.idempotencyKey) }
            // Answered as duplicates (at least once: a sender that timed out under load sends
            // again, and the key still makes it a no-op; `applications` above is the guarantee).
            #expect(replayed.allSatisfy { entry in (station.standin.applied.first { $0.idempotencyKey == entry.idempotencyKey }?.replays ?? 0) >= 1 })
            #expect(station.standin.backend.pushes.filter { $0.stream.hasPrefix("queued/") }.count == queued.filter { requeued.contains($0.idempotencyKey) }.count)

            // Salvaged: listed with what was recovered, no longer missing.
            let after = StationStatus.collect(try station.configuration(), environment: [:])
            #expect(after.damagedDatabases.first?.salvaged?.requeued == report.requeued)
            #expect(!after.missing.contains { $0.hasPrefix("database:") }, "\(after.missing)")
            try PythonCheck.validate(json: Data(try after.json()), schema: PackageFiles.path("models/station-status.schema.json"))
        }
    }
}
