import ArgumentParser
import EdgeAgent
import EdgeCore
import EdgeCapture
import EdgePayloads
import EdgePush
import EdgeStation
import EdgeSync

/// The station configuration as the one-shot commands read it: `StationConfiguration` (the
/// agent's loader, every error naming the file and key path) with every problem of a refused file
/// one line on stderr, and exit status 2.
struct ConfigFile {
    /// The capabilities' sections every command checks the file with, as `edge run` does.
    static let sections = StationSchema.configurationSections

    let station: StationConfiguration

    var config: PayloadConfig? { station.payloads }
    var sync: SyncSettings? { station.sync }
    var push: PushSettings? { station.push }
    var cameras: [String: CaptureConfiguration] { station.cameraModels }
    var path: String? { station.path }

    static func loadForCommand(explicitPath: String?) throws -> ConfigFile {
        do {
            return ConfigFile(station: try StationConfiguration.load(explicitPath: explicitPath, sections: sections))
        } catch {
            let all = StationConfiguration.resolvePath(explicitPath: explicitPath).map { StationConfiguration.check(path: $0, sections: sections) } ?? []
            for problem in all.isEmpty ? [error] : all { Output.stderr("edge: \(DisplayText.escaped(problem.message, quoting: false))") }
            throw ExitCode(2)
        }
    }

    func classifier() -> PayloadClassifier { station.classifier() }
}
