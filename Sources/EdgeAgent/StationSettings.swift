import EdgeCapture
import EdgeCore
import FoundationEssentials

/// edge.json's `station` section: what `edge run` runs (AGT-1..4). Every key is optional; a file
/// without the section runs an agent with no camera that still sends, pulls and relays.
public struct StationSettings: Decodable, Sendable, Equatable {
    /// Which flows the station offers (kiosk.md): the receiving dock, the clinic, or both.
    public enum Role: String, Decodable, Sendable {
        case dock, clinic, both
    }

    public var name: String = "edge"
    public var role: Role = .both
    /// Where the database lives (AGT-3); see `StationPaths` for the order of precedence.
    public var stateDirectory: String?
    public var vaultDirectory: String?
    /// Where the vault's key generations live (default `<state>-keys`, beside the state
    /// directory): outside the vault and state directories, so crypto-erase holds against a
    /// backup of either (`StationPaths`).
    public var vaultKeyDirectory: String?
    /// keyfile, tpm2, keyfile+tpm2 or auto, as for `edge vault --backend`.
    public var vaultBackend: String = "auto"
    public var tcti: String?
    public var cameras: [StationCamera] = []
    public var scanEvents = ScanEventPolicy()
    /// Seconds between pulls; a pull also runs at start and when the agent is woken.
    public var pullInterval: Double = 30
    /// Where /metrics is served: "127.0.0.1:PORT", "[::1]:PORT", "localhost:PORT" or
    /// "unix:/path"; nil serves none. Loopback only: metrics name cameras and queue sizes.
    public var metrics: String?
    /// Seconds an unchanged code stays unreported while it stays in view (SCN-7).
    public var repeatGap: Double = 1.5

    /// The keys of the `station` section (unknown ones are refused).
    public static let configurationKeys = ConfigurationKeys.object(CodingKeys.self, nested: [
        .cameras: .array(StationCamera.configurationKeys), .scanEvents: ScanEventPolicy.configurationKeys,
    ])

    enum CodingKeys: String, CodingKey, CaseIterable {
        case name, role, tcti, cameras, metrics
        case stateDirectory = "state_dir"
        case vaultDirectory = "vault_dir"
        case vaultKeyDirectory = "vault_key_dir"
        case vaultBackend = "vault_backend"
        case scanEvents = "scan_events"
        case pullInterval = "pull_interval"
        case repeatGap = "repeat_gap"
    }

    public init() {}

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decodeIfPresent(String.self, forKey: .name) ?? name
        role = try c.decodeIfPresent(Role.self, forKey: .role) ?? role
        stateDirectory = try c.decodeIfPresent(String.self, forKey: .stateDirectory)
        vaultDirectory = try c.decodeIfPresent(String.self, forKey: .vaultDirectory)
        vaultKeyDirectory = try c.decodeIfPresent(String.self, forKey: .vaultKeyDirectory)
        vaultBackend = try c.decodeIfPresent(String.self, forKey: .vaultBackend) ?? vaultBackend
        tcti = try c.decodeIfPresent(String.self, forKey: .tcti)
        cameras = try c.decodeIfPresent([StationCamera].self, forKey: .cameras) ?? []
        scanEvents = try c.decodeIfPresent(ScanEventPolicy.self, forKey: .scanEvents) ?? scanEvents
        pullInterval = try c.decodeIfPresent(Double.self, forKey: .pullInterval) ?? pullInterval
        metrics = try c.decodeIfPresent(String.self, forKey: .metrics)
        repeatGap = try c.decodeIfPresent(Double.self, forKey: .repeatGap) ?? repeatGap
    }

    /// Checks the values the decoder cannot; the error names the key path.
    public func validate() throws(StationConfigurationError) {
        func invalid(_ key: String, _ why: String) -> StationConfigurationError {
            StationConfigurationError(.invalid, keyPath: "station." + key, why)
        }
        guard !name.isEmpty, name.utf8.count <= 64, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." }) else {
            throw invalid("name", "must be 1-64 letters, digits, '-', '_' or '.'")
        }
        guard ["keyfile", "tpm2", "keyfile+tpm2", "auto"].contains(vaultBackend) else {
            throw invalid("vault_backend", "must be keyfile, tpm2, keyfile+tpm2 or auto")
        }
        for (key, value) in [("state_dir", stateDirectory), ("vault_dir", vaultDirectory), ("vault_key_dir", vaultKeyDirectory)] {
            if let value, value.isEmpty || value.utf8.contains(0) { throw invalid(key, "must be a non-empty path") }
        }
        guard pullInterval >= 1, pullInterval <= 86_400 else { throw invalid("pull_interval", "must be between 1 and 86400 seconds") }
        guard repeatGap >= 0, repeatGap <= 3_600 else { throw invalid("repeat_gap", "must be between 0 and 3600 seconds") }
        if let metrics, MetricsAddress(metrics) == nil {
            throw invalid("metrics", "must be 127.0.0.1:PORT, [::1]:PORT, localhost:PORT or unix:/absolute/path")
        }
        guard cameras.count <= 16 else { throw invalid("cameras", "at most 16 cameras per station") }
        var names: Set<String> = []
        for (index, camera) in cameras.enumerated() {
            try camera.validate(keyPath: "station.cameras[\(index)]")
            guard names.insert(camera.name).inserted else {
                throw invalid("cameras[\(index)].name", "\(camera.name) is used by another camera")
            }
        }
        try scanEvents.validate(keyPath: "station.scan_events")
    }
}

/// One camera the station runs (`station.cameras[]`).
public struct StationCamera: Decodable, Sendable, Equatable {
    /// Names the camera in events, logs, metrics and status ("dock").
    public var name: String
    /// A V4L2 node (`/dev/video0`, or a stable `/dev/v4l/by-id/...` link), or `replay:` and a
    /// comma-separated list of image files, replayed in a loop at `fps`: the host stand-in for a
    /// camera that tests and benchmarks use.
    public var device: String
    /// Frames per second of a replay source; a V4L2 camera runs at its own rate.
    public var fps: Double = 30
    /// Pixel format and size for this camera whatever its model (a camera without a USB id,
    /// such as a CSI sensor or vivid, cannot be matched by the `cameras` section); nil: by model.
    public var format: String?
    public var width: Int?
    public var height: Int?

    enum CodingKeys: String, CodingKey, CaseIterable { case name, device, fps, format, width, height }

    static let configurationKeys = ConfigurationKeys.object(CodingKeys.self)

    public init(name: String, device: String, fps: Double = 30) {
        self.name = name
        self.device = device
        self.fps = fps
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        device = try c.decode(String.self, forKey: .device)
        fps = try c.decodeIfPresent(Double.self, forKey: .fps) ?? fps
        format = try c.decodeIfPresent(String.self, forKey: .format)
        width = try c.decodeIfPresent(Int.self, forKey: .width)
        height = try c.decodeIfPresent(Int.self, forKey: .height)
    }

    /// The capture settings this entry fixes, or nil to use the camera model's.
    public func captureOverride(keyPath: String = "station.cameras[]") throws(StationConfigurationError) -> CaptureConfiguration? {
        guard format != nil || width != nil || height != nil else { return nil }
        return try CameraSettings(usb: "", format: format, width: width, height: height, buffers: nil, controls: nil)
            .configuration(keyPath: keyPath)
    }

    /// The image files of a `replay:` device, or nil for a V4L2 node.
    public var replayFiles: [String]? {
        guard device.hasPrefix("replay:") else { return nil }
        return device.dropFirst("replay:".count).split(separator: ",").map(String.init)
    }

    func validate(keyPath: String) throws(StationConfigurationError) {
        guard !name.isEmpty, name.utf8.count <= 32, name.allSatisfy({ ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" || $0 == "_" }) else {
            throw StationConfigurationError(.invalid, keyPath: keyPath + ".name", "must be 1-32 ASCII letters, digits, '-' or '_'")
        }
        if let files = replayFiles {
            guard !files.isEmpty, files.count <= 64 else {
                throw StationConfigurationError(.invalid, keyPath: keyPath + ".device", "replay: takes 1-64 image files, comma separated")
            }
        } else if !device.hasPrefix("/dev/") {
            throw StationConfigurationError(.invalid, keyPath: keyPath + ".device", "must be a /dev/ node or replay:FILE[,FILE...]")
        }
        guard fps > 0, fps <= 240 else {
            throw StationConfigurationError(.invalid, keyPath: keyPath + ".fps", "must be above 0 and at most 240")
        }
        guard (width == nil) == (height == nil) else {
            throw StationConfigurationError(.invalid, keyPath: keyPath + (width == nil ? ".width" : ".height"), "width and height go together")
        }
        _ = try captureOverride(keyPath: keyPath)
    }
}

/// What happens to a camera read of each payload class (AGT-4): `ignore` records nothing,
/// `keep` records the event locally, `sync` records it and queues it for the backend in the same
/// transaction.
///
/// Decision: by default every class is kept locally and only the receiving flow's classes
/// (purchase orders, vendor cards, materials, products) sync. Linking codes are handled by the
/// enrollment flow and are never sent as scan events, so `sync` is refused for them (ENR-8);
/// unknown codes are kept so an operator can see what the camera read.
public struct ScanEventPolicy: Decodable, Sendable, Equatable {
    public enum Action: String, Decodable, Sendable {
        case ignore, keep, sync
    }

    public var defaultAction: Action = .keep
    public var classes: [String: Action] = ["purchase-order": .sync, "vendor": .sync, "material": .sync, "product": .sync]

    enum CodingKeys: String, CodingKey, CaseIterable {
        case defaultAction = "default"
        case classes
    }

    /// `classes` is keyed by payload class names, which the operator may add.
    static let configurationKeys = ConfigurationKeys.object(CodingKeys.self, nested: [.classes: .map(.value)])

    public init() {}

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        defaultAction = try c.decodeIfPresent(Action.self, forKey: .defaultAction) ?? defaultAction
        if let given = try c.decodeIfPresent([String: Action].self, forKey: .classes) {
            // Given classes override the defaults one by one.
            classes.merge(given) { _, new in new }
        }
    }

    public func action(for className: String) -> Action {
        let action = classes[className] ?? defaultAction
        return className == "linking-code" && action == .sync ? .keep : action
    }

    func validate(keyPath: String) throws(StationConfigurationError) {
        if classes["linking-code"] == .sync {
            throw StationConfigurationError(.invalid, keyPath: keyPath + ".classes.linking-code",
                                            "linking codes are never sent as scan events (ENR-8); use keep or ignore")
        }
        guard classes.count <= 64 else {
            throw StationConfigurationError(.invalid, keyPath: keyPath + ".classes", "at most 64 classes")
        }
    }
}
