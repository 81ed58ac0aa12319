import EdgeCapture
import EdgeCore
import EdgeFCM
import EdgePayloads
import EdgePush
import EdgeScanning
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
///
/// Decision, unknown keys (AGT-10): refused, each with the nearest known key when one is close
/// (`station.nmae: unknown key; did you mean station.name?`), since a typo silently skipped leaves
/// a default running that the operator believes changed. The known keys are the decoders' own
/// (`ConfigurationKeys` from their `CodingKeys`): the core sections here, the capabilities'
/// through `sections` (`StationSchema.configurationSections`). Every section is checked on its
/// own, so `check` reports every problem of the file at once: all unknown keys, then the first
/// bad value of each section.
public struct StationConfiguration: Sendable {
    public static let systemPath = ConfigurationFileLocation.systemPath
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
    /// The capabilities' sections this configuration was checked with; a reload checks the new
    /// file with the same ones.
    public var sections: [ConfigurationSection] = []

    public init() {}

    /// The top-level sections this module decodes, with their keys.
    public static let coreKeys: [String: ConfigurationKeys] = PayloadConfig.configurationSections.merging([
        "cameras": .array(CameraSettings.configurationKeys),
        "sync": SyncSettings.configurationKeys,
        "push": PushSettings.configurationKeys,
        "station": StationSettings.configurationKeys,
        "scanning": ScanningSettings.configurationKeys,
    ]) { core, _ in core }

    /// Every key edge.json may hold: the core sections and `sections`.
    public static func knownKeys(sections: [ConfigurationSection]) -> ConfigurationKeys {
        .object(coreKeys.merging(sections.map { ($0.name, $0.keys) }) { core, _ in core })
    }

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

    /// The file `load(explicitPath:)` reads: `explicitPath`, then $EDGE_CONFIG, then
    /// /etc/edge/edge.json when it exists; nil for none.
    public static func resolvePath(explicitPath: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        ConfigurationFileLocation.resolve(explicitPath: explicitPath, environment: environment)
    }

    /// Finds and loads the configuration as described above.
    public static func load(explicitPath: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
                            sections: [ConfigurationSection] = []) throws(StationConfigurationError) -> StationConfiguration {
        guard let path = resolvePath(explicitPath: explicitPath, environment: environment) else {
            var configuration = StationConfiguration()
            configuration.sections = sections
            return configuration
        }
        return try load(path: path, sections: sections)
    }

    /// Loads `path`, refusing it with its first problem (`check` lists them all).
    public static func load(path: String, sections: [ConfigurationSection] = []) throws(StationConfigurationError) -> StationConfiguration {
        let (configuration, problems) = evaluate(path: path, sections: sections)
        guard let configuration else { throw problems.first ?? StationConfigurationError(.invalid, keyPath: "", "is not valid", file: path) }
        return configuration
    }

    /// Every problem of the file at `path` (AGT-10, `edge config check`); empty when it loads.
    public static func check(path: String, sections: [ConfigurationSection] = []) -> [StationConfigurationError] {
        evaluate(path: path, sections: sections).problems
    }

    /// The configuration in `path`, or every problem that stops it, each naming the file.
    static func evaluate(path: String, sections: [ConfigurationSection]) -> (configuration: StationConfiguration?, problems: [StationConfigurationError]) {
        let data: [UInt8]
        do {
            // Regular files only: a FIFO in its place must not hang the agent's start or reload.
            data = try PosixFile.readAll(path: path, maxBytes: maxBytes, allowSpecial: false)
        } catch where error.code == .tooLarge {
            return (nil, [StationConfigurationError(.tooLarge, keyPath: "", "is larger than \(maxBytes) bytes", file: path)])
        } catch {
            return (nil, [StationConfigurationError(.unreadable, keyPath: "", "cannot be read: \(error.context["reason"] ?? error.code.rawValue)", file: path)])
        }
        let (parsed, problems) = evaluate(Data(data), sections: sections)
        guard var configuration = parsed else { return (nil, problems.map { $0.located(in: path) }) }
        configuration.path = path
        // Replayed images are named relative to the file, like every path in it.
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        for index in configuration.station.cameras.indices {
            guard let files = configuration.station.cameras[index].replayFiles else { continue }
            configuration.station.cameras[index].device = "replay:" + files.map { $0.hasPrefix("/") ? $0 : directory + "/" + $0 }.joined(separator: ",")
        }
        return (configuration, [])
    }

    /// Parses the file's bytes, refusing them with their first problem; errors carry the key
    /// path but not the file.
    public static func parse(_ data: Data, sections: [ConfigurationSection] = []) throws(StationConfigurationError) -> StationConfiguration {
        let (configuration, problems) = evaluate(data, sections: sections)
        guard let configuration else { throw problems.first ?? StationConfigurationError(.invalid, keyPath: "", "is not valid") }
        return configuration
    }

    /// The configuration in `data`, or every problem that stops it: unknown keys first (in
    /// key-path order), then each section's first bad value, section by section.
    static func evaluate(_ data: Data, sections: [ConfigurationSection]) -> (configuration: StationConfiguration?, problems: [StationConfigurationError]) {
        // Not JSON, or not an object: nothing more can be said.
        do {
            _ = try JSONDecoder().decode(TopLevelObject.self, from: data)
        } catch {
            return (nil, [decodingError(error)])
        }
        var configuration = StationConfiguration()
        configuration.document = data
        configuration.sections = sections
        var problems = UnknownKeyFinder.problems(in: data, keys: knownKeys(sections: sections))
        func collect(_ body: () throws(StationConfigurationError) -> Void) {
            do { try body() } catch { problems.append(error) }
        }
        collect { () throws(StationConfigurationError) in
            do throws(PayloadConfigError) {
                configuration.payloads = try PayloadConfig(json: data)
            } catch {
                throw StationConfigurationError(.invalid, keyPath: error.context["path"] ?? "", Self.reason(error.message, path: error.context["path"]))
            }
        }
        collect { () throws(StationConfigurationError) in
            let sync = try configuration.section("sync", as: SyncSettings.self)
            do throws(SyncError) {
                try sync?.validate()
            } catch {
                throw StationConfigurationError(.invalid, keyPath: error.context["key"] ?? "sync", Self.reason(error.message, path: error.context["key"]))
            }
            configuration.sync = sync
        }
        collect { () throws(StationConfigurationError) in
            let push = try configuration.section("push", as: PushSettings.self)
            do throws(FCMError) {
                try push?.validate()
            } catch {
                throw StationConfigurationError(.invalid, keyPath: error.context["key"] ?? "push", Self.reason(error.message, path: error.context["key"]))
            }
            configuration.push = push
        }
        collect { () throws(StationConfigurationError) in
            for (index, entry) in (try configuration.section("cameras", as: [CameraSettings].self) ?? []).enumerated() {
                configuration.cameraModels[entry.usb.lowercased()] = try entry.configuration(keyPath: "cameras[\(index)]")
            }
        }
        collect { () throws(StationConfigurationError) in
            if let station = try configuration.section("station", as: StationSettings.self) {
                try station.validate()
                configuration.station = station
            }
        }
        collect { () throws(StationConfigurationError) in
            configuration.scanning = try configuration.section("scanning", as: ScanningSettings.self) ?? ScanningSettings()
        }
        for section in sections {
            let checked = configuration
            collect { () throws(StationConfigurationError) in try section.check(checked) }
        }
        return problems.isEmpty ? (configuration, []) : (nil, problems)
    }

    public func classifier() -> PayloadClassifier {
        payloads.map { PayloadClassifier(config: $0) } ?? PayloadClassifier(sponsors: .empty)
    }

    /// Decodes only when the document is a JSON object.
    private struct TopLevelObject: Decodable {
        init(from decoder: any Decoder) throws {
            _ = try decoder.container(keyedBy: SectionWrapper<Int>.AnyKey.self)
        }
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
