import ArgumentParser
import EdgeCapture
import EdgeFCM
import EdgePayloads
import EdgeSync
import FoundationEssentials

/// The station's configuration file: sponsor prefix table and extra payload classes (SCN-6, ENR-4).
///
/// Decision: looked up as --config, then $EDGE_CONFIG, then /etc/edge/edge.json; with none of
/// them the station has no sponsor table, so every linking code is reported as not recognized
/// (which is true for such a station) rather than refused.
struct ConfigFile {
    static let systemPath = "/etc/edge/edge.json"
    /// Configuration is small; a larger file is a mistake or an attack.
    static let maxBytes = 1 << 20

    /// nil when the station has no configuration file.
    let config: PayloadConfig?
    /// The `sync` section; nil when absent.
    var sync: SyncSettings? = nil
    /// The `push` section; nil when absent.
    var push: PushSettings? = nil
    /// The `cameras` section (HW-4), validated, by USB vendor:product.
    var cameras: [String: CaptureConfiguration] = [:]
    /// The file read, for messages.
    var path: String? = nil

    static func load(explicitPath: String?) throws(ConfigError) -> ConfigFile {
        let env = ProcessInfo.processInfo.environment["EDGE_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
        guard let path = explicitPath ?? env ?? (FileManager.default.fileExists(atPath: systemPath) ? systemPath : nil) else {
            return ConfigFile(config: nil)
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe)
        } catch {
            throw ConfigError(code: .unreadable, message: "cannot read configuration \(path)", path: path)
        }
        if data.count > maxBytes {
            throw ConfigError(code: .tooLarge, message: "configuration \(path) is larger than \(maxBytes) bytes", path: path)
        }
        let payloads: PayloadConfig
        do {
            payloads = try PayloadConfig(json: data)
        } catch {
            throw ConfigError(code: .invalid, message: "configuration \(path): \(error)", path: path)
        }
        let sync: SyncSettings?
        do {
            sync = try JSONDecoder().decode(SyncSection.self, from: data).sync
            try sync?.validate()
        } catch let error as SyncError {
            throw ConfigError(code: .invalid, message: "configuration \(path): \(error.message)", path: path)
        } catch {
            throw ConfigError(code: .invalid, message: "configuration \(path): the sync section is not valid (see models/edge-config.schema.json)", path: path)
        }
        let push: PushSettings?
        do {
            push = try JSONDecoder().decode(PushSection.self, from: data).push
            try push?.validate()
        } catch let error as FCMError {
            throw ConfigError(code: .invalid, message: "configuration \(path): \(error.message)", path: path)
        } catch {
            throw ConfigError(code: .invalid, message: "configuration \(path): the push section is not valid (see models/edge-config.schema.json)", path: path)
        }
        let cameraSettings: [CameraSettings]
        do {
            cameraSettings = try JSONDecoder().decode(CamerasSection.self, from: data).cameras ?? []
        } catch {
            throw ConfigError(code: .invalid, message: "configuration \(path): the cameras section is not valid (see models/edge-config.schema.json)", path: path)
        }
        var cameras: [String: CaptureConfiguration] = [:]
        for entry in cameraSettings {
            do {
                cameras[entry.usb.lowercased()] = try entry.configuration()
            } catch {
                throw ConfigError(code: .invalid, message: "configuration \(path): \(error.message)", path: path)
            }
        }
        return ConfigFile(config: payloads, sync: sync, push: push, cameras: cameras, path: path)
    }

    /// `load` for a command: an error is one line on stderr and exit status 2.
    static func loadForCommand(explicitPath: String?) throws -> ConfigFile {
        do {
            return try load(explicitPath: explicitPath)
        } catch {
            Output.stderr("edge: \(error.message)")
            throw ExitCode(2)
        }
    }

    func classifier() -> PayloadClassifier {
        config.map { PayloadClassifier(config: $0) } ?? PayloadClassifier(sponsors: .empty)
    }
}

/// The part of edge.json the sync core reads.
private struct SyncSection: Decodable {
    let sync: SyncSettings?
}

/// The part of edge.json the push relay reads.
private struct PushSection: Decodable {
    let push: PushSettings?
}

/// The part of edge.json the cameras read.
private struct CamerasSection: Decodable {
    let cameras: [CameraSettings]?
}
