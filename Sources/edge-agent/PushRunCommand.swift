import ArgumentParser
import EdgeCommandLine
import EdgeFCM
import EdgePush

/// `edge push run`: release held notifications, send what is due; --watch keeps relaying.
struct PushRunCommand: BridgedAsyncCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Release what quiet hours held, send what is due, purge records over 90 days old.",
        discussion: """
        Without --watch, one pass, then exits. With --watch, relays until SIGINT or SIGTERM, like
        the agent does: another process's `edge push send --no-send` is picked up within a second.

        Exit status:
          0   nothing due is left unsent
          1   something waits for a retry, or sending is not authenticated
          2   configuration, vault or database could not be used
        """
    )

    @OptionGroup var options: PushOptions
    @OptionGroup var vault: VaultCommand.Location
    @Flag(name: .customLong("watch"), help: "Keep relaying until SIGINT/SIGTERM.") var watch = false

    func runAsync() async throws {
        let file = try options.load()
        let store = try options.openStore(file)
        let connection = try PushConnection.open(file, store: store, vault: vault)
        defer { connection.transport.shutdown() }
        if watch {
            let relay = connection.relay
            try await SyncRunCommand.untilSignalled {
                await relay.run(onReport: { Output.stdout(PushConnection.summary($0)) },
                                onError: { Output.stderr("edge: \($0.message)") })
            }
            return
        }
        let report = try await PushOptions.runAsync { () async throws(PushError) -> PushSendReport in try await connection.relay.pass() }
        Output.stdout(PushConnection.summary(report))
        if report.deferred > 0 || report.authenticationError != nil { throw ExitCode(1) }
    }
}
