import ArgumentParser
import EdgeAgent
import EdgeCommandLine
import EdgeCore
import EdgeStore
import FoundationEssentials

/// `edge status [--json]`: the station at a glance (AGT-7), models/station-status.schema.json.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the station: agent, cameras, queue, held credentials, vault, storage, and what is missing.",
        discussion: """
        Exit status: 0 the agent runs and nothing is missing, 1 something is missing (listed),
        2 the configuration is invalid.
        """
    )

    @Option(name: .customLong("config"), help: ArgumentHelp("Station configuration (edge.json).", valueName: "FILE"))
    var config: String?

    @Flag(name: .customLong("json"), help: "One JSON document (models/station-status.schema.json).")
    var json = false

    func run() throws {
        let file = try ConfigFile.loadForCommand(explicitPath: config)
        let status = StationStatus.collect(file.station)
        if json {
            Output.stdout(String(decoding: try status.json(), as: UTF8.self))
        } else {
            print(status)
        }
        if !status.missing.isEmpty { throw ExitCode(1) }
    }

    private func print(_ status: StationStatus) {
        let agent = status.agent
        Output.stdout("station \(Output.printable(status.station)) (\(status.role))" + (status.configuration.map { ", configuration \(Output.printable($0))" } ?? ""))
        Output.stdout("edge: \(Output.printable(status.edge.description))")
        let running = agent.edge.map { " edge \(Output.printable($0.description))," } ?? ""
        Output.stdout("agent: " + (agent.running ? "running\(running) pid \(agent.pid ?? 0)" : "not running")
                      + (agent.metrics.map { ", metrics at \($0)" } ?? "") + (agent.ui.map { ", kiosk at \($0)" } ?? ""))
        // After an upgrade the agent runs the old binary until it restarts (the package restarts
        // it; a hand-copied binary does not): say so rather than let the versions disagree silently.
        if let runs = agent.edge, runs != status.edge {
            Output.stdout("  restart to run the installed edge \(Output.printable(status.edge.description)) (systemctl restart edge)")
        }
        if !agent.restartPending.isEmpty { Output.stdout("  restart to apply: \(agent.restartPending.joined(separator: ", "))") }
        if let error = agent.lastReloadError { Output.stdout("  last reload refused: \(Output.printable(error))") }
        for part in status.parts {
            Output.stdout("  \(part.name): \(part.state)" + (part.reason.map { " - \(Output.printable($0))" } ?? "")
                          + (part.retrying(now: Date().timeIntervalSince1970).map { " (\($0))" } ?? ""))
        }
        for camera in status.cameras {
            Output.stdout("camera \(camera.name) (\(Output.printable(camera.device))): \(camera.up ? "up" : "down")"
                          + (camera.detail.map { " - \(Output.printable($0))" } ?? "") + ", \(camera.frames) frames, \(camera.events) events"
                          + (camera.lastEvent.map { ", last: \(Output.printable($0))" } ?? ""))
        }
        if let queue = status.queue {
            Output.stdout("queue: \(queue.depth) waiting" + (queue.oldestAgeSeconds.map { ", oldest \(Int($0)) s" } ?? "")
                          + ", \(queue.deadLetters) dead letters, \(queue.conflicts) conflicts")
            for hold in queue.holds {
                if !hold.fault {
                    // ENR-13: an expected wait, not a fault; no release advice.
                    Output.stdout("  waiting for \(Output.printable(hold.waitingFor)): \(Output.printable(hold.credential)) - \(Output.printable(hold.reason))")
                } else if let release = hold.release {
                    Output.stdout("  held: \(Output.printable(hold.credential)) - \(Output.printable(hold.reason)); put a new token in the vault"
                                  + (hold.releasedByNewToken ? " (released by itself)" : "") + " or, once it has one, release with `\(release)`")
                } else {
                    Output.stdout("  held: \(Output.printable(hold.credential)) - \(Output.printable(hold.reason)); waiting for \(Output.printable(hold.waitingFor))")
                }
            }
        }
        Output.stdout("vault: \(Output.printable(status.vault.directory))" + (status.vault.backend.map { ", \($0)" } ?? "")
                      + (status.vault.reason.map { " (\(Output.printable($0)))" } ?? ""))
        Output.stdout("storage: \(status.storage.state.rawValue) - \(Output.printable(status.storage.detail))")
        if let events = status.scanEvents { Output.stdout("scan events: \(events.total)") }
        for file in status.damagedDatabases {
            Output.stdout("damaged database kept: \(Output.printable(file.path))"
                          + (file.salvaged.map { ", salvaged: \($0.requeued) re-queued, \($0.deadLetters) dead letters, \($0.alreadyPresent) already queued, \($0.unreadable) unreadable" }
                             ?? ", not salvaged (`\(Output.printable(file.salvageCommand))`)"))
        }
        for line in status.missing { Output.stdout("missing: \(Output.printable(line))") }
    }
}
