import EdgeAgent

/// The `enrollment` section of edge.json (models/edge-config.schema.json). Every default is the
/// spec's figure; tests shorten the waits.
public struct EnrollmentSettings: Sendable, Hashable, Decodable {
    /// ENR-5: the answer must come within this many seconds.
    public var requestTimeout: Double = 30
    /// ENR-6: network errors are retried this many times, `retryDelay` seconds apart.
    public var networkRetries: Int = 3
    public var retryDelay: Double = 2
    /// ENR-7: at most `attemptLimit` validations per `attemptWindow` seconds per station.
    public var attemptLimit: Int = 5
    public var attemptWindow: Double = 300
    /// ENR-13: how often a STUDY_START_PENDING enrollment's approval is polled.
    public var statusPollInterval: Double = 60

    public init() {}

    /// The section as the station's loader checks it: its keys (unknown ones are refused) and
    /// its values, whatever the station's role (AGT-10).
    public static let configurationSection = ConfigurationSection.decoding("enrollment", as: EnrollmentSettings.self, keys: .object(CodingKeys.self))

    enum CodingKeys: String, CodingKey, CaseIterable {
        case requestTimeout = "request_timeout"
        case networkRetries = "network_retries"
        case retryDelay = "retry_delay"
        case attemptLimit = "attempt_limit"
        case attemptWindow = "attempt_window"
        case statusPollInterval = "status_poll_interval"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = EnrollmentSettings()
        requestTimeout = try c.decodeIfPresent(Double.self, forKey: .requestTimeout) ?? d.requestTimeout
        networkRetries = try c.decodeIfPresent(Int.self, forKey: .networkRetries) ?? d.networkRetries
        retryDelay = try c.decodeIfPresent(Double.self, forKey: .retryDelay) ?? d.retryDelay
        attemptLimit = try c.decodeIfPresent(Int.self, forKey: .attemptLimit) ?? d.attemptLimit
        attemptWindow = try c.decodeIfPresent(Double.self, forKey: .attemptWindow) ?? d.attemptWindow
        statusPollInterval = try c.decodeIfPresent(Double.self, forKey: .statusPollInterval) ?? d.statusPollInterval
        // Bounded so a typo cannot turn the limits off or hang a coordinator for hours.
        let checks: [(CodingKeys, Bool)] = [
            (.requestTimeout, (0.1...300).contains(requestTimeout)), (.networkRetries, (0...10).contains(networkRetries)),
            (.retryDelay, (0...60).contains(retryDelay)), (.attemptLimit, (1...100).contains(attemptLimit)),
            (.attemptWindow, (1...86_400).contains(attemptWindow)), (.statusPollInterval, (0.1...86_400).contains(statusPollInterval)),
        ]
        for (key, ok) in checks where !ok {
            throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "out of range")
        }
    }
}
