import EdgeTestSupport
import Foundation
import XCTest

/// SYN-12: the sender and the enqueueing processes are killed with SIGKILL at random moments
/// while a faulty stand-in drops, delays, refuses, double-answers and fails requests; restarted
/// and killed again, cycle after cycle. Then, with the faults off, one more `edge sync run`
/// drains the rest, and the server's effects must equal what was enqueued: every committed
/// idempotency key applied exactly once, none missing, nothing stuck, the database intact.
///
/// Exactly-once is checked from both sides (issue #16): after every cycle, each entry the station
/// no longer holds (the sender deletes an entry only on a confirmed answer) must be applied on the
/// stand-in; at the end, the station's gapless sequence counter says how many entries were ever
/// committed, and the stand-in must have applied exactly those sequences, once each.
///
/// `EDGE_CRASH_CYCLES` sets the cycle count (default 50 for a newcomer's run; `.ci/test` runs 200
/// under CI).
final class SyncCrashTests: XCTestCase {
    func testKilledSendersAndEnqueuersLoseNothingAndApplyNothingTwice() throws {
        let cycles = Int(ProcessInfo.processInfo.environment["EDGE_CRASH_CYCLES"] ?? "") ?? 50
        let token = "crash-token-\(UUID().uuidString)"
        let standin = try StandinProcess(token: token)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("edge-crash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let vault = dir.appendingPathComponent("vault").path
        let database = dir.appendingPathComponent("edge.sqlite").path
        let config = dir.appendingPathComponent("edge.json")
        try Data(#"{"sync": {"base_url": "\#(standin.baseURL)", "database": "\#(database)", "connect_timeout": 2, "total_timeout": 4}}"#.utf8)
            .write(to: config)
        let put = try EdgeProcess.run(["vault", "put", "sync.token", "--dir", vault, "--backend", "keyfile"], input: Data(token.utf8))
        XCTAssertEqual(put.status, 0, put.stderr)

        let seed = try standin.injectRandomPushFaults(probability: 0.35)

        let edge = try EdgeProcess.executable()
        func launch(_ arguments: [String], input: String? = nil) throws -> (Process, Pipe) {
            let process = Process()
            process.executableURL = edge
            process.arguments = arguments
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            let inPipe = Pipe()
            process.standardInput = input == nil ? FileHandle.nullDevice : inPipe
            try process.run()
            if let input {
                inPipe.fileHandleForWriting.write(Data(input.utf8))
                try? inPipe.fileHandleForWriting.close()
            }
            return (process, out)
        }

        var committed: Set<String> = []
        // Every key the station was ever seen holding (outbox snapshots) or printed as committed.
        var seen: Set<String> = []
        var attempted = 0, killedSenders = 0, killedEnqueuers = 0
        for cycle in 0..<cycles {
            // Mostly the manual drain (it makes every entry due, so each cycle sends), sometimes
            // the long-running sender the agent uses.
            let watch = cycle % 2 == 1
            let (sender, _) = try launch(["sync", "run", "--no-pull", "--config", config.path, "--dir", vault, "--backend", "keyfile"]
                                         + (watch ? ["--watch"] : []))
            for _ in 0..<3 {
                attempted += 1
                let (enqueue, out) = try launch(["sync", "enqueue", "stream-\(attempted % 5)", "--kind", "scan", "--json", "--json-file", "-",
                                                 "--config", config.path],
                                                input: #"{"n": \#(attempted), "cycle": \#(cycle)}"#)
                if Int.random(in: 0..<5) == 0 {
                    usleep(UInt32.random(in: 0...15_000))
                    kill(enqueue.processIdentifier, SIGKILL)
                    killedEnqueuers += 1
                }
                let printed = out.fileHandleForReading.readDataToEndOfFile()
                enqueue.waitUntilExit()
                // A key printed is a key committed: the line is written after the commit.
                if enqueue.terminationReason == .exit, enqueue.terminationStatus == 0,
                   let record = try? JSONSerialization.jsonObject(with: printed) as? [String: Any],
                   let key = record["idempotency_key"] as? String {
                    committed.insert(key)
                }
            }
            usleep(UInt32.random(in: 0...80_000))
            if sender.isRunning {
                kill(sender.processIdentifier, SIGKILL)
                killedSenders += 1
            }
            sender.waitUntilExit()

            // The station's side, with every process stopped: what left its queue was confirmed
            // to the sender, so the stand-in must have applied it by now.
            let station = try Self.stationQueues(database)
            seen.formUnion(station.queued)
            seen.formUnion(committed)
            let confirmed = seen.subtracting(station.queued).subtracting(station.deadLettered).subtracting(station.conflicted)
            let appliedNow = Set(try Self.appliedPushes(standin).filter { $0.value >= 1 }.keys)
            let lost = confirmed.subtracting(appliedNow)
            XCTAssertTrue(lost.isEmpty, "cycle \(cycle), seed \(seed): \(lost.count) entries left the station's queue but were never applied")
            XCTAssertTrue(station.deadLettered.isEmpty && station.conflicted.isEmpty, "cycle \(cycle), seed \(seed): \(station)")
            if !lost.isEmpty { break }
        }

        // Faults off; drain what is left (a manual run sends everything now).
        try standin.control("DELETE", "/_standin/faults")
        var drained: EdgeProcess.Outcome?
        for _ in 0..<5 {
            drained = try EdgeProcess.run(["sync", "run", "--no-pull", "--config", config.path, "--dir", vault, "--backend", "keyfile"])
            if drained?.status == 0 { break }
        }
        XCTAssertEqual(drained?.status, 0, "final drain: \(drained?.stdout ?? "") \(drained?.stderr ?? "")")

        // Local side: nothing queued, nothing dead, database intact (the status command runs
        // PRAGMA integrity_check when it opens the database).
        let status = try EdgeProcess.run(["sync", "status", "--json", "--config", config.path])
        XCTAssertEqual(status.status, 0, status.stdout + status.stderr)
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(document["depth"] as? Int, 0)
        XCTAssertEqual((document["dead_letters"] as? [Any])?.count, 0)
        let integrity = try EdgeProcess.run(executable: URL(fileURLWithPath: "/usr/bin/env"),
                                            ["python3", "-c", "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('PRAGMA integrity_check').fetchone()[0])", database])
        XCTAssertEqual(integrity.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "ok", integrity.stderr)

        // Server side: every committed key applied exactly once; nothing applied twice; no key
        // the agent never made; per stream, first applications in sequence order (SYN-3).
        // One record per key, in the order keys were first seen.
        let applied = try XCTUnwrap(try JSONSerialization.jsonObject(with: standin.control("GET", "/_standin/applied")) as? [[String: Any]])
        let records = applied.filter { ($0["path"] as? String) == "/api/sync/push" }
        var appliedKeys: Set<String> = []
        var lastSequence: [String: Int64] = [:]
        for record in records {
            let key = try XCTUnwrap(record["idempotency_key"] as? String)
            XCTAssertEqual(record["applications"] as? Int, 1, "key \(key) applied \(record["applications"] ?? "?") times")
            XCTAssertTrue(appliedKeys.insert(key).inserted)
            // Every sync push record names its entry; an `if let` here let the order check skip them all.
            let stream = try XCTUnwrap(record["stream"] as? String, "key \(key) has no stream")
            let sequence = try XCTUnwrap((record["sequence"] as? NSNumber)?.int64Value, "key \(key) has no sequence")
            XCTAssertGreaterThan(sequence, lastSequence[stream] ?? 0, "stream \(stream) applied out of order")
            lastSequence[stream] = sequence
        }
        XCTAssertTrue(committed.isSubset(of: appliedKeys), "missing on the server: \(committed.subtracting(appliedKeys).count) of \(committed.count)")
        // Enqueues killed after their commit but before printing are applied too; nothing else is.
        XCTAssertLessThanOrEqual(appliedKeys.count, attempted)
        XCTAssertGreaterThan(committed.count, attempted / 2)

        // The station's count of what it ever committed: the sequence counter is gapless (taken
        // in the enqueue's own transaction), so sequences 1...n are exactly the committed entries,
        // including enqueues killed after their commit. Each applied once, none missing, no other.
        let nextSequence = try XCTUnwrap(Int(try Command.shell("sqlite3 '\(database)' 'SELECT next_value FROM sequence_counter'")))
        let appliedSequences = records.compactMap { ($0["sequence"] as? NSNumber)?.intValue }
        XCTAssertEqual(appliedSequences.count, records.count, "an applied push without a sequence")
        XCTAssertEqual(appliedSequences.sorted(), Array(1..<nextSequence),
                       "seed \(seed): the station committed \(nextSequence - 1) entries; the stand-in applied \(appliedSequences.count)")
        XCTAssertTrue(seen.isSubset(of: appliedKeys), "seed \(seed): keys the station held were never applied")
        print("crash proof: \(cycles) cycles, \(attempted) enqueues (\(killedEnqueuers) killed, \(committed.count) confirmed), "
              + "\(killedSenders) senders killed, \(appliedKeys.count) applied once each, seed \(seed)")
    }

    /// The keys in the station's outbox, dead letters and conflicts (sqlite3, the database
    /// quiescent: every edge process of the cycle has exited).
    private static func stationQueues(_ database: String) throws -> (queued: Set<String>, deadLettered: Set<String>, conflicted: Set<String>) {
        let rows = try Command.shell("""
            sqlite3 '\(database)' "SELECT 'q|' || idempotency_key FROM outbox UNION ALL SELECT 'd|' || idempotency_key FROM dead_letters \
            UNION ALL SELECT 'c|' || idempotency_key FROM conflicts"
            """)
        var queues: (queued: Set<String>, deadLettered: Set<String>, conflicted: Set<String>) = ([], [], [])
        for row in rows.split(separator: "\n") {
            let key = String(row.dropFirst(2))
            switch row.first {
            case "q": queues.queued.insert(key)
            case "d": queues.deadLettered.insert(key)
            default: queues.conflicted.insert(key)
            }
        }
        return queues
    }

    /// The stand-in's applied sync pushes: key -> applications.
    private static func appliedPushes(_ standin: StandinProcess) throws -> [String: Int] {
        let applied = try XCTUnwrap(try JSONSerialization.jsonObject(with: standin.control("GET", "/_standin/applied")) as? [[String: Any]])
        var out: [String: Int] = [:]
        for record in applied where (record["path"] as? String) == "/api/sync/push" {
            if let key = record["idempotency_key"] as? String { out[key] = record["applications"] as? Int ?? 0 }
        }
        return out
    }
}
