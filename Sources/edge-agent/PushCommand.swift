import ArgumentParser

/// `edge push ...`: the push relay from the command line (push.md).
struct PushCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push",
        abstract: "Record, hold and send push notifications to people's phones (FCM HTTP v1).",
        discussion: """
        Notifications, preferences, devices and badges live in the agent's database (--database,
        $EDGE_DATABASE, sync.database, /var/lib/edge/edge.sqlite). Sending needs the push section
        of the configuration and the FCM service-account key in the vault (secret
        push.service-account unless push.service_account_secret says otherwise).
        """,
        subcommands: [PushSendCommand.self, PushPrefsCommand.self, PushDevicesCommand.self, PushBadgeCommand.self,
                      PushStatusCommand.self, PushRunCommand.self]
    )
}
