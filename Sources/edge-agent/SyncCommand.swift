import ArgumentParser

/// `edge sync ...`: the durable outbox and its sender from the command line (sync.md).
struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Show, drain and repair the queue of what this station owes the backend.",
        discussion: """
        The database is --database, then $EDGE_DATABASE, then sync.database in the configuration
        (--config, $EDGE_CONFIG, /etc/edge/edge.json), then /var/lib/edge/edge.sqlite. Sending
        needs sync.base_url in the configuration and the station token in the vault
        (secret sync.token unless sync.token_secret says otherwise).
        """,
        subcommands: [SyncStatusCommand.self, SyncRunCommand.self, SyncRequeueCommand.self, SyncEnqueueCommand.self, SyncReleaseCommand.self,
                      SyncSalvageCommand.self]
    )
}
