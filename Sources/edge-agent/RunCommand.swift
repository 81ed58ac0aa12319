import ArgumentParser
import EdgeAgent
import EdgeCommandLine
import EdgeStation
import Logging

/// `edge run`: the station (AGT-1..8). Loads the configuration, builds the station by its role
/// (`buildStation`), runs it until a signal, and maps failures to exit codes.
struct RunCommand: BridgedAsyncCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the station: cameras, scan events, outbox sender, puller, push relay, metrics, the kiosk.",
        discussion: """
        SIGTERM or SIGINT stops it cleanly (exit 0); SIGHUP reloads edge.json (an invalid file is
        refused and the running configuration stays). Under systemd (Type=notify) it reports
        READY=1, WATCHDOG=1 and STOPPING=1. What cannot start yet (no camera, no backend, no vault
        secret) is retried; `edge status` says what is missing. The kiosk is served on
        http://127.0.0.1:8080 unless `ui.listen` says otherwise (beyond loopback it needs TLS and
        an operator PIN: `edge vault put ui.pin`). Exit status 2: configuration invalid, or the
        database could not be opened.
        """
    )

    @Option(name: .customLong("config"), help: ArgumentHelp("Station configuration (edge.json).", valueName: "FILE"))
    var config: String?

    func runAsync() async throws {
        let file = try ConfigFile.loadForCommand(explicitPath: config)
        var dependencies = AgentDependencies()
        dependencies.handleSignals = true
        dependencies.logger = Logger(label: "edge") { KeyValueLogHandler(label: $0) }
        do {
            try await buildStation(file.station, dependencies: dependencies).run()
        } catch let error as StationBuildError {
            Output.stderr("edge: \(error.message)")
            throw ExitCode(2)
        }
    }
}
