import EdgeCapture
import EdgeCore
import EdgeFCM
import EdgePayloads
import EdgePush
import EdgeSync
import FoundationEssentials

/// The station's whole configuration (edge.json, models/edge-config.schema.json), loaded and
/// checked once: the payload classes and sponsor table (SCN-6, ENR-4), the sync backend, the push
/// relay, camera models (HW-4) and the `station` section `edge run` composes (AGT-1).
///
/// Decision: the file is looked up as an explicit path, then $EDGE_CONFIG, then
/// /etc/edge/edge.json; with none of them the station has an empty configuration (no sponsor
/// table: every linking code is reported as not recognized, which is true for such a station).
/// Every error names the file and the key path.
public struct StationConfiguration: Sendable {
    public static let systemPath = "/etc/edge/edge.json"
    /// Configuration is small; a larger file is a mistake or an attack.
    public static let maxBytes = 1 << 20

    /// The file read; nil for the empty configuration.
    public var path: String?
    /// Sponsor table and extra classes; nil when the file has neither.
    public var payloads: PayloadConfig?
    public var sync: SyncSettings?
    public var push: PushSettings?
    /// Capture settings by USB vendor:product (lower case).
    public var cameraModels: [String: CaptureConfiguration] = [:]
    public var station = StationSettings()
    /// How Code 39 is read (`scanning` section).
    public var scanning = ScanningSettings()
    /// The file's bytes, for the sections capabilities read themselves (`section(_:as:)`).
    public var document: Data?

    public init() {}

    /// A capability's own top-level section (`enrollment`, `receiving`, ...), decoded with its
    /// key path in any error. Decision: capabilities own their sections so this module does not
    /// depend on them; each decodes its section when it is built, so `edge run` and a reload
    /// refuse a bad one before anything starts. Nil when the file has no such section.
    public func section<T: Decodable>(_ key: String, as type: T.Type) throws(StationConfigurationError) -> T? {
        guard let document else { return nil }
        guard let info = SectionWrapper<T>.keyInfo else { return nil }
        let decoder = JSONDecoder()
        decoder.userInfo[info] = key
        do {
            return try decoder.decode(SectionWrapper<T>.self, from: document).value
        } catch let error as StationConfigurationError {
            throw path.map { error.located(in: $0) } ?? error
        } catch {
            let located = Self.decodingError(error)
            throw path.map { located.located(in: $0) } ?? located
        }
    }

    /// Finds and loads the configuration as described above.
    public static func load(explicitPath: String?, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(StationConfigurationError) -> StationConfiguration {
        let env = environment["EDGE_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
        guard let path = explicitPath ?? env ?? (FileManager.default.fileExists(atPath: systemPath) ? systemPath : nil) else {
            return StationConfiguration()
        }
        return try load(path: path)
    }

    public static func load(path: String) throws(StationConfigurationError) -> StationConfiguration {
        let data: [UInt8]
        do {
            // Regular files only: a FIFO in its place must not hang the agent's start or reload.
            data = try PosixFile.readAll(path: path, maxBytes: maxBytes, allowSpecial: false)
        } catch where error.code == .tooLarge {
            throw StationConfigurationError(.tooLarge, keyPath: "", "is larger than \(maxBytes) bytes", file: path)
        } catch {
            throw StationConfigurationError(.unreadable, keyPath: "", "cannot be read: \(error.context["reason"] ?? error.code.rawValue)", file: path)
        }
        do {
            var configuration = try parse(Data(data))
            configuration.path = path
            // Replayed images are named relative to the file, like every path in it.
            let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
            for index in configuration.station.cameras.indices {
                guard let files = configuration.station.cameras[index].replayFiles else { continue }
                configuration.station.cameras[index].device = "replay:" + files.map { $0.hasPrefix("/") ? $0 : directory + "/" + $0 }.joined(separator: ",")
            }
            return configuration
        } catch {
            throw error.located(in: path)
        }
    }

    /// Parses the file's bytes; errors carry the key path but not the file.
    public static func parse(_ data: Data) throws(StationConfigurationError) -> StationConfiguration {
        var configuration = StationConfiguration()
        configuration.document = data
        do {
            configuration.payloads = try PayloadConfig(json: data)
        } catch {
            throw StationConfigurationError(.invalid, keyPath: error.context["path"] ?? "", Self.reason(error.message, path: error.context["path"]))
        }
        let sections: Sections
        do {
            sections = try JSONDecoder().decode(Sections.self, from: data)
        } catch {
            throw Self.decodingError(error)
        }
        do {
            try sections.sync?.validate()
            try sections.push?.validate()
        } catch let error as SyncError {
            throw StationConfigurationError(.invalid, keyPath: error.context["key"] ?? "sync", Self.reason(error.message, path: error.context["key"]))
        } catch let error as FCMError {
            throw StationConfigurationError(.invalid, keyPath: error.context["key"] ?? "push", Self.reason(error.message, path: error.context["key"]))
        } catch {
            throw StationConfigurationError(.invalid, keyPath: "", "\(error)")
        }
        configuration.sync = sections.sync
        configuration.push = sections.push
        for (index, entry) in (sections.cameras ?? []).enumerated() {
            configuration.cameraModels[entry.usb.lowercased()] = try entry.configuration(keyPath: "cameras[\(index)]")
        }
        configuration.scanning = sections.scanning ?? ScanningSettings()
        if let station = sections.station {
            try station.validate()
            configuration.station = station
        }
        return configuration
    }

    public func classifier() -> PayloadClassifier {
        payloads.map { PayloadClassifier(config: $0) } ?? PayloadClassifier(sponsors: .empty)
    }

    /// The sections decoded with Codable (the payload section has its own strict parser).
    private struct Sections: Decodable {
        let sync: SyncSettings?
        let push: PushSettings?
        let cameras: [CameraSettings]?
        let station: StationSettings?
        let scanning: ScanningSettings?
    }

    /// A decoding failure as the key path it happened at and what was expected there.
    static func decodingError(_ error: any Error) -> StationConfigurationError {
        guard let error = error as? DecodingError else {
            return StationConfigurationError(.invalid, keyPath: "", "is not valid JSON")
        }
        switch error {
        case .typeMismatch(let type, let context):
            return StationConfigurationError(.invalid, keyPath: keyPath(context.codingPath), "must be \(Self.typeName(type))")
        case .valueNotFound(let type, let context):
            return StationConfigurationError(.invalid, keyPath: keyPath(context.codingPath), "must be \(Self.typeName(type)), not null")
        case .keyNotFound(let key, let context):
            return StationConfigurationError(.invalid, keyPath: keyPath(context.codingPath + [key]), "is required")
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return StationConfigurationError(.invalid, keyPath: "", "is not valid JSON") }
            return StationConfigurationError(.invalid, keyPath: keyPath(context.codingPath), "has a value edge does not know (see models/edge-config.schema.json)")
        @unknown default:
            return StationConfigurationError(.invalid, keyPath: "", "is not valid (see models/edge-config.schema.json)")
        }
    }

    static func keyPath(_ path: [any CodingKey]) -> String { CodingPathText.text(path) }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Int.Type, is Double.Type: return "a number"
        case is Bool.Type: return "true or false"
        default:
            let name = String(describing: type)
            if name.hasPrefix("Array") { return "an array" }
            if name.hasPrefix("Dictionary") { return "an object" }
            return "an object"
        }
    }

    /// A module's message without its own leading key path (the error carries it separately).
    private static func reason(_ message: String, path: String?) -> String {
        guard let path, message.hasPrefix(path) else { return message }
        var rest = message.dropFirst(path.count)
        while rest.first == ":" || rest.first == " " { rest = rest.dropFirst() }
        return String(rest)
    }
}

/// Decodes one top-level key, named through `userInfo`, so errors keep their full key path.
private struct SectionWrapper<T: Decodable>: Decodable {
    let value: T?

    static var keyInfo: CodingUserInfoKey? { CodingUserInfoKey(rawValue: "edge.section") }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        let name = Self.keyInfo.flatMap { decoder.userInfo[$0] as? String } ?? ""
        value = try container.decodeIfPresent(T.self, forKey: AnyKey(stringValue: name))
    }

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
