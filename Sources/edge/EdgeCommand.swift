import ArgumentParser

/// `edge`: the scanning-station agent's command line. One file per subcommand.
@main
struct EdgeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edge",
        abstract: "Scanning-station agent: decode barcodes, say what they are, keep secrets, sync with the backend.",
        subcommands: [RunCommand.self, StatusCommand.self, ScanCommand.self, VaultCommand.self, DeviceIDCommand.self, SyncCommand.self, PushCommand.self, CamerasCommand.self, EnrollCommand.self, EnrollmentsCommand.self, ReceiveCommand.self, LookupCommand.self]
    )

    /// Decision (SCN-12): `edge scan` goes straight to its command. Scripts start it once per
    /// file, and building the whole command tree first costs every scan ~10 M instructions of
    /// reflection over commands it will not run (callgrind); the output is the same.
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == ScanCommand.configuration.commandName {
            let rest = Array(arguments.dropFirst())
            guard let request = ScanRequest.fastPath(rest) else { return ScanCommand.main(rest) }
            do {
                try request.validate()
                try request.run()
            } catch {
                ScanCommand.exit(withError: error)
            }
        } else {
            main(arguments)
        }
    }
}
