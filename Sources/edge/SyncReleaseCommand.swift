import ArgumentParser
import EdgeStore

/// `edge sync release CREDENTIAL`: sends a held credential's entries again (AGT-6, SYN-7).
struct SyncReleaseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "release",
        abstract: "Release a held credential: its queued entries are sent again.",
        discussion: """
        A credential is held when the backend rejected its token (401/403). The agent releases it
        by itself once the vault holds a new token for it; this releases it by hand (`station`
        is the station's own token). Exit status: 0 released, 1 it was not held, 2 database error.
        """
    )

    @OptionGroup var options: SyncOptions

    @Argument(help: ArgumentHelp("The held credential, as `edge sync status` lists it.", valueName: "CREDENTIAL"))
    var credential: String

    func run() throws {
        let outbox = try options.openOutbox(try options.settings())
        let released: Bool
        do {
            released = try SyncState(database: outbox.database).release(credential: credential)
        } catch {
            Output.stderr("edge: \(error.message)")
            throw ExitCode(2)
        }
        guard released else {
            Output.stdout("\(Output.printable(credential)) was not held")
            throw ExitCode(1)
        }
        Output.stdout("released \(Output.printable(credential)); its entries are sent at the next pass")
    }
}
