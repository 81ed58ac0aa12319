import ArgumentParser
import EdgeAgent
import EdgeEnrollment
import EdgeKiosk
import EdgeReceiving
import Logging

/// `edge run`: the station (AGT-1..8). Everything it does is `buildAgent`'s; this only loads the
/// configuration, sets up logging and signals, and maps failures to exit codes.
struct RunCommand: BridgedAsyncCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the station: cameras, scan events, outbox sender, puller, push relay, metrics, the kiosk.",
        discussion: """
        Runs until SIGTERM or SIGINT (stops taking frames, finishes the transaction in flight,
        closes connections, exits 0). SIGHUP reloads the configuration: cameras, payload classes
        and the scan-event policy change live; an invalid file is refused and the running
        configuration stays. Under systemd (Type=notify) it reports READY=1, WATCHDOG=1 and
        STOPPING=1. What cannot start yet (no camera, no backend, no vault secret) is retried,
        and `edge status` says what is missing.

        The kiosk (local web UI and its JSON API, models/kiosk-api.openapi.json) is served on
        http://127.0.0.1:8080 unless edge.json's `ui.listen` says otherwise; `edge status`
        shows the address. Beyond loopback it needs ui.tls_certificate, ui.tls_key and an
        operator PIN in the vault (`edge vault put ui.pin`).

        State: $EDGE_STATE_DIR, station.state_dir, systemd's StateDirectory, /var/lib/edge for
        root, else ~/.local/state/edge. Logs: one key=value line per event on stderr.

        Exit status:
          0   stopped by a signal
          2   configuration invalid, or the database could not be opened
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
            // The clinic's capability runs on clinic stations (and on stations that are both).
            let role = file.station.station.role
            let enrollment = role != .dock ? try EnrollmentCapability(configuration: file.station) : nil
            let receiving = role != .clinic ? try ReceivingCapability(configuration: file.station) : nil
            if let enrollment { dependencies.capabilities.append(enrollment) }
            if let receiving { dependencies.capabilities.append(receiving) }
            // The kiosk (UI-1) shows both; registered last, so they are in place when it starts.
            dependencies.capabilities.append(try KioskCapability(configuration: file.station, receiving: receiving, enrollment: enrollment))
        } catch {
            Output.stderr("edge: \(error.message)")
            throw ExitCode(2)
        }
        let agent: Agent
        do {
            agent = try buildAgent(file.station, dependencies: dependencies)
        } catch {
            Output.stderr("edge: \(error.message)")
            throw ExitCode(2)
        }
        try await agent.run()
    }
}
