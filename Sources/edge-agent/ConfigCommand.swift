import ArgumentParser

/// `edge config ...`: the station's configuration file (edge.json) itself.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Check the station configuration (edge.json).",
        subcommands: [ConfigCheckCommand.self]
    )
}
