import ArgumentParser

/// `edge`: the scanning-station agent's command line. One file per subcommand.
@main
struct EdgeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edge",
        abstract: "Scanning-station agent: decode barcodes, say what they are, keep secrets, sync with the backend.",
        subcommands: [ScanCommand.self, VaultCommand.self, DeviceIDCommand.self, SyncCommand.self, PushCommand.self, CamerasCommand.self]
    )
}
