import ArgumentParser
import EdgeCommandLine
import EdgeStore

/// `edge sync requeue ID`: send a dead letter again, with its original key and sequence.
struct SyncRequeueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "requeue",
        abstract: "Move a dead letter (see `edge sync status`) back into the outbox.",
        discussion: "Exit status: 0 re-queued; 1 no dead letter with that id; 2 the database could not be used."
    )

    @OptionGroup var options: SyncOptions

    @Argument(help: ArgumentHelp("The dead letter's id.", valueName: "ID"))
    var id: Int64

    func run() throws {
        let outbox = try options.openOutbox(try options.settings())
        do {
            let entry = try outbox.requeue(deadLetterID: id)
            Output.stdout("re-queued dead letter \(id) as #\(entry.id) on \(Output.printable(entry.stream)) (sequence \(entry.sequence), key \(entry.idempotencyKey))")
        } catch {
            Output.stderr("edge: \(error.message)")
            throw ExitCode(error.code == .notFound ? 1 : 2)
        }
    }
}
