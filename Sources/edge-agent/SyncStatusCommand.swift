import ArgumentParser
import EdgeCommandLine
import EdgeContract
import EdgeStore
import FoundationEssentials
import Glibc

/// `edge sync status`: what is queued, what is stuck and why (SYN-4, SYN-7, SYN-9).
struct SyncStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Queue depth per stream, dead letters, conflicts, holds, last exchange, paused or not and why.",
        discussion: """
        With --json, one object valid against models/sync-status.schema.json.

        Exit status:
          0   nothing needs an operator
          1   something does: sending paused or stopped (426), dead letters, held credentials,
              or the outbox at 80 % of its limit or more
          2   the database could not be read
        """
    )

    @OptionGroup var options: SyncOptions
    @Flag(name: .customLong("json")) var json = false

    func run() throws {
        let settings = try options.settings()
        let outbox = try options.openOutbox(settings)
        let now = Date().timeIntervalSince1970
        let status: OutboxStatus
        let deadLetters: [DeadLetter]
        let conflicts: [ConflictRecord]
        do {
            _ = try outbox.purgeExpiredConflicts(now: now)
            status = try outbox.status(now: now)
            deadLetters = try outbox.deadLetters()
            conflicts = try outbox.conflicts()
        } catch {
            Output.stderr("edge: \(error.message)")
            throw ExitCode(2)
        }
        let document = SyncStatusDocument(database: outbox.database.path, status: status, deadLetters: deadLetters,
                                          conflicts: conflicts, appVersion: EdgeVersion.current, now: now)
        if json {
            Output.stdout(Output.json(document))
        } else {
            printText(document, status: status, now: now)
        }
        if document.needsAttention { throw ExitCode(1) }
    }

    private func printText(_ d: SyncStatusDocument, status: OutboxStatus, now: Double) {
        Output.stdout("sync database \(d.database)")
        if d.upgradeRequired {
            Output.stdout("sending: STOPPED, the backend requires a newer edge than \(EdgeVersion.current): \(Output.printable(d.upgradeMessage ?? ""))")
        } else if d.paused {
            Output.stdout("sending: PAUSED until \(d.pausedUntil ?? "?") after \(Output.printable(d.pauseReason ?? "failures")); `edge sync run` resumes now")
        } else if d.consecutiveFailures > 0 {
            Output.stdout("sending: retrying, \(d.consecutiveFailures) failures in a row, the last: \(Output.printable(d.lastFailure ?? ""))")
        } else {
            Output.stdout("sending: ok")
        }
        Output.stdout("queue: \(d.depth) entries in \(d.streams.count) streams"
            + (status.oldestEntryAge.map { ", oldest \(Self.age($0))" } ?? "")
            + "; storage \(Self.percent(status.usage)) of limit" + (d.usage.level == "normal" ? "" : " (WARNING)"))
        for stream in status.streams {
            var line = "  \(Output.printable(stream.stream))  \(stream.depth)  oldest \(Self.age(stream.oldestEntryAge))"
            if let error = stream.headLastError {
                line += "  head tried \(stream.headAttempts)x, next in \(Self.age(max(0, stream.headNextAttemptAt - now))): \(Output.printable(error))"
            }
            Output.stdout(line)
        }
        // A fault says what ends it; an expected wait (a Study Start approval, ENR-13) says only
        // what it waits for: no release advice, which would send data early.
        for hold in d.holds {
            let credential = Output.printable(hold.credential)
            if !hold.fault {
                Output.stdout("waiting for \(Output.printable(hold.waitingFor)): entries for \(credential) since \(hold.since): \(Output.printable(hold.reason))")
            } else if hold.operatorRelease {
                Output.stdout("held: entries for \(credential) wait since \(hold.since): \(Output.printable(hold.reason)); put a new token for it in the vault "
                              + "(released by itself) or, once the vault has one, release with `edge sync release \(credential)`")
            } else {
                Output.stdout("held: entries for \(credential) wait since \(hold.since): \(Output.printable(hold.reason)); waiting for \(Output.printable(hold.waitingFor))")
            }
        }
        if !d.deadLetters.isEmpty {
            Output.stdout("dead letters: \(d.deadLetters.count) (send again with `edge sync requeue ID`)")
            for dead in d.deadLetters {
                Output.stdout("  #\(dead.id) \(Output.printable(dead.stream)) \(Output.printable(dead.kind)) seq \(dead.sequence): \(Output.printable(dead.reason))")
            }
        }
        if !d.conflicts.isEmpty {
            Output.stdout("conflicts, the server's version won (kept 7 days): \(d.conflicts.count)")
            for conflict in d.conflicts {
                Output.stdout("  #\(conflict.id) \(Output.printable(conflict.stream)) \(Output.printable(conflict.kind)) seq \(conflict.sequence): \(Output.printable(conflict.changes ?? "the server did not say what changed"))")
            }
        }
        Output.stdout("last successful push: \(d.lastPush ?? "never"); last pull: \(d.lastPull ?? "never")")
    }

    static func age(_ seconds: Double) -> String {
        let s = Int64(seconds.rounded())
        return s < 120 ? "\(s)s" : s < 7200 ? "\(s / 60)m" : s < 172_800 ? "\(s / 3600)h" : "\(s / 86400)d"
    }

    static func percent(_ usage: OutboxUsage) -> String {
        let ratio = max(Double(usage.entries) / Double(usage.limits.maxEntries), Double(usage.bytes) / Double(usage.limits.maxBytes))
        return String(Int((ratio * 100).rounded(.up))) + "%"
    }

    /// A JSON string literal.
    static func quoted(_ text: String) -> String {
        let encoder = JSONEncoder()
        return String(decoding: (try? encoder.encode(text)) ?? Data("\"\"".utf8), as: UTF8.self)
    }
}
