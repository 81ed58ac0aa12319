import ArgumentParser
import EdgeAgent
import EdgeCapture
import EdgePayloads
import EdgePush
import EdgeSync

/// The station configuration as the one-shot commands read it: `StationConfiguration` (the
/// agent's loader, every error naming the file and key path) with an error turned into one line
/// on stderr and exit status 2.
struct ConfigFile {
    let station: StationConfiguration

    var config: PayloadConfig? { station.payloads }
    var sync: SyncSettings? { station.sync }
    var push: PushSettings? { station.push }
    var cameras: [String: CaptureConfiguration] { station.cameraModels }
    var path: String? { station.path }

    static func loadForCommand(explicitPath: String?) throws -> ConfigFile {
        do {
            return ConfigFile(station: try StationConfiguration.load(explicitPath: explicitPath))
        } catch {
            Output.stderr("edge: \(error.message)")
            throw ExitCode(2)
        }
    }

    func classifier() -> PayloadClassifier { station.classifier() }
}
