import ArgumentParser
import EdgeAgent
import EdgeCommandLine
import EdgeCore

/// `edge config check [--config FILE]` (AGT-10): every problem of edge.json at once, as `edge run`
/// and a reload would refuse them: unknown keys with the nearest known one, and each section's
/// bad value, whatever the station's role.
///
/// Decision: no file to check (no --config, no $EDGE_CONFIG, no /etc/edge/edge.json) is a failure,
/// not a pass: the operator asked about a file that is not there.
struct ConfigCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check edge.json: unknown keys and bad values, every one at once.",
        discussion: """
        The file is --config, then $EDGE_CONFIG, then /etc/edge/edge.json. Each problem is one line
        naming the file and the key path (`station.nmae: unknown key; did you mean station.name?`).
        Exit status: 0 the file is valid, 1 it is not (or there is none).
        """
    )

    @Option(name: .customLong("config"), help: ArgumentHelp("Station configuration (edge.json).", valueName: "FILE"))
    var config: String?

    func run() throws {
        guard let path = StationConfiguration.resolvePath(explicitPath: config) else {
            Output.stderr("edge: no configuration to check: give --config FILE, set $EDGE_CONFIG, or create \(StationConfiguration.systemPath)")
            throw ExitCode(1)
        }
        let problems = StationConfiguration.check(path: path, sections: ConfigFile.sections)
        guard !problems.isEmpty else {
            Output.stdout("configuration \(DisplayText.escaped(path, quoting: false)): ok")
            return
        }
        for problem in problems { Output.stdout(DisplayText.escaped(problem.message, quoting: false)) }
        Output.stderr("edge: \(problems.count) problem\(problems.count == 1 ? "" : "s") in \(DisplayText.escaped(path, quoting: false))")
        throw ExitCode(1)
    }
}
