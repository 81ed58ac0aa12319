import ArgumentParser
import EdgeCommandLine
import EdgeStore
import FoundationEssentials

/// `edge sync salvage FILE`: re-queue what can be read from a damaged database (issue #30 item 3).
/// The reading and the rules are `OutboxSalvage`'s.
struct SyncSalvageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "salvage",
        abstract: "Re-queue every readable entry of a damaged database file under its original idempotency key.",
        discussion: """
        `edge run` moves a database it finds damaged at start aside (`edge status` lists it, e.g.
        /var/lib/edge/edge.sqlite.damaged-20250307T142501Z) and starts a fresh one. This reads that
        file (never changing it) and queues its outbox entries again in the station's database,
        with their keys, streams and sequences, so the backend applies each once even if it had
        it already; dead letters come back as dead letters. Entries the station already has are
        skipped, so running it twice is safe. It may run while the agent runs.
        Exit status: 0 everything the file lists was re-queued; 1 some entries could not be read
        (listed) or nothing of the file can be read; 2 the file or the station's database could not
        be used.
        """
    )

    @OptionGroup var options: SyncOptions

    @Argument(help: ArgumentHelp("The damaged database file.", valueName: "FILE"))
    var file: String

    func run() throws {
        let outbox = try options.openOutbox(try options.settings())
        let report: OutboxSalvageReport
        do {
            report = try OutboxSalvage.salvage(file: file, into: outbox)
        } catch {
            Output.stderr("edge: \(error.message)")
            throw ExitCode(error.code == .corrupt ? 1 : 2)
        }
        Output.stdout("salvaged \(Output.printable(file)): \(report.requeued) entries re-queued, \(report.deadLetters) dead letters kept, "
                      + "\(report.alreadyPresent) already in this station's queue" + (report.renumbered > 0 ? ", \(report.renumbered) given new sequences" : ""))
        for lost in report.lost {
            Output.stdout("unreadable: \(lost.table) entry \(lost.id)" + (lost.stream.map { " on \(Output.printable($0))" } ?? "")
                          + (lost.sequence.map { ", sequence \($0)" } ?? "") + (lost.idempotencyKey.map { ", key \($0)" } ?? ""))
        }
        for table in report.brokenTables {
            Output.stdout("damaged: part of \(table) could not be read; entries on those pages are not listed")
        }
        if !report.complete { throw ExitCode(1) }
    }
}
