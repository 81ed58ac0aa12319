import ArgumentParser
import EdgeAgent
import EdgeCapture
import EdgeCommandLine
import EdgeCore
import EdgePayloads
import EdgePush
import EdgeStation
import EdgeSync
import Glibc

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

    /// Decision (SCN-12, issue #32): the file is found first, and with none there is nothing to
    /// check, so neither the capabilities' sections (which only check a file and its reloads) nor
    /// ProcessInfo's copy of the whole environment are built: ~0.7 M instructions of every
    /// `edge scan` without a configuration (callgrind, Benchmarks/start-cost.py; 5 % of its main).
    /// With a file, everything is checked as before.
    static func loadForCommand(explicitPath: String?) throws -> ConfigFile {
        guard let path = StationConfiguration.resolvePath(explicitPath: explicitPath, environment: ConfigurationFileLocation.environment) else {
            return ConfigFile(station: StationConfiguration())
        }
        do {
            return ConfigFile(station: try StationConfiguration.load(path: path, sections: sections))
        } catch {
            let all = StationConfiguration.check(path: path, sections: sections)
            for problem in all.isEmpty ? [error] : all { Output.stderr("edge: \(DisplayText.escaped(problem.message, quoting: false))") }
            throw ExitCode(2)
        }
    }

    func classifier() -> PayloadClassifier { station.classifier() }
}
