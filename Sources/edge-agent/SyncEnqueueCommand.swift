import ArgumentParser
import EdgeCommandLine
import EdgeStore
import FoundationEssentials

/// `edge sync enqueue STREAM --json-file F`: queue a message by hand (tests, operators).
struct SyncEnqueueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enqueue",
        abstract: "Queue a JSON message on a stream; prints its id, sequence and idempotency key once it is durable.",
        discussion: "Exit status: 0 queued; 1 refused (invalid, too large, outbox full); 2 the database or file could not be used."
    )

    @OptionGroup var options: SyncOptions

    @Argument(help: ArgumentHelp("Stream name (FIFO within a stream), e.g. po/PO-2024-00042.", valueName: "STREAM"))
    var stream: String

    @Option(name: .customLong("kind"), help: ArgumentHelp("What the message is, e.g. scan or grn.confirm.", valueName: "KIND"))
    var kind: String = "event"

    @Option(name: .customLong("json-file"), help: ArgumentHelp("The message body; - reads standard input.", valueName: "FILE"))
    var jsonFile: String

    @Option(name: .customLong("credential"), help: ArgumentHelp("Vault secret whose token sends it (an enrollment's); default: the station's.", valueName: "NAME"))
    var credential: String?

    @Flag(name: .customLong("json")) var json = false

    func run() throws {
        let payload: [UInt8]
        do {
            payload = jsonFile == "-" ? try StandardInput.readAll(max: Outbox.maxPayloadBytes + 1)
                                      : [UInt8](try Data(contentsOf: URL(fileURLWithPath: jsonFile)))
        } catch {
            Output.stderr("edge: cannot read \(jsonFile)")
            throw ExitCode(2)
        }
        let settings = try options.settings()
        let outbox = try options.openOutbox(settings)
        let entry: OutboxEntry
        do {
            entry = try outbox.database.dbWriter.write { db in
                try outbox.enqueue(db, stream: stream, kind: kind, payload: payload, credential: credential)
            }
        } catch {
            // SQLite's own errors (a full disk at COMMIT) are worded like the store's (issue #30).
            let error = StoreError.wrapping(error, "queue the message", path: outbox.database.path)
            Output.stderr("edge: \(error.message)" + (error.code == .storage ? " Nothing was queued; what was queued before is kept." : ""))
            throw ExitCode([.databaseFailure, .corrupt, .storage].contains(error.code) ? 2 : 1)
        }
        let usage = try? outbox.usage()
        if json {
            Output.stdout(#"{"id":\#(entry.id),"sequence":\#(entry.sequence),"idempotency_key":"\#(entry.idempotencyKey)","stream":\#(SyncStatusCommand.quoted(entry.stream))}"#)
        } else {
            Output.stdout("queued #\(entry.id) on \(Output.printable(entry.stream)): sequence \(entry.sequence), key \(entry.idempotencyKey)")
        }
        if let usage, usage.level != .normal {
            Output.stderr("edge: warning: the outbox is at \(SyncStatusCommand.percent(usage)) of its limit")
        }
    }
}
