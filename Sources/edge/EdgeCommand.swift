import ArgumentParser

/// `edge`: the scanning-station agent's command line. One file per subcommand.
@main
struct EdgeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edge",
        abstract: "Scanning-station agent: decode barcodes and say what they are.",
        subcommands: [ScanCommand.self]
    )
}
