import EdgePayloads
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
        do {
            return ConfigFile(config: try PayloadConfig(json: data))
        } catch {
            throw ConfigError(code: .invalid, message: "configuration \(path): \(error)", path: path)
        }
    }

    func classifier() -> PayloadClassifier {
        config.map { PayloadClassifier(config: $0) } ?? PayloadClassifier(sponsors: .empty)
    }
}
