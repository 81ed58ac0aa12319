import EdgeCore
import EdgeFCM
import EdgeHTTP
import FoundationEssentials

/// The `push` section of the station configuration (models/edge-config.schema.json).
///
/// Decisions: the endpoint defaults to real FCM; plain `http://` is accepted for loopback only
/// (a stand-in without TLS, spoken as HTTP/1.1; `https://127.0.0.1` with `ca_file` gives the
/// stand-in's HTTP/2); the project is the service account's own `project_id` unless `project_id` names another; the
/// request timeout cannot go under PSH-9's 10 s.
public struct PushSettings: Sendable, Hashable, Decodable {
    public static let defaultServiceAccountSecret = "push.service-account"

    public var endpoint: String
    /// The vault secret holding the service-account JSON key (PSH-8).
    public var serviceAccountSecret: String
    public var projectID: String?
    /// The zone of users without one (PSH-3); nil: the station's system zone.
    public var stationZone: String?
    /// Who hears of a confirmed GRN (RCV-7).
    public var receivingTeam: [String]
    public var caFile: String?
    public var requestTimeout: Double
    /// Sends open at once (PSH-10; the transport adds at most 100 streams per connection).
    public var maxInFlight: Int

    /// The keys of the `push` section (unknown ones are refused by the station's loader).
    public static let configurationKeys = ConfigurationKeys.object(CodingKeys.self)

    enum CodingKeys: String, CodingKey, CaseIterable {
        case endpoint, serviceAccountSecret = "service_account_secret", projectID = "project_id", stationZone = "station_zone",
             receivingTeam = "receiving_team", caFile = "ca_file", requestTimeout = "request_timeout", maxInFlight = "max_in_flight"
    }

    public init(endpoint: String = FCMClientConfiguration.productionEndpoint) {
        self.endpoint = endpoint
        serviceAccountSecret = Self.defaultServiceAccountSecret
        projectID = nil
        stationZone = nil
        receivingTeam = []
        caFile = nil
        requestTimeout = 30
        maxInFlight = PushSender.defaultMaxInFlight
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(endpoint: try c.decodeIfPresent(String.self, forKey: .endpoint) ?? FCMClientConfiguration.productionEndpoint)
        serviceAccountSecret = try c.decodeIfPresent(String.self, forKey: .serviceAccountSecret) ?? serviceAccountSecret
        projectID = try c.decodeIfPresent(String.self, forKey: .projectID)
        stationZone = try c.decodeIfPresent(String.self, forKey: .stationZone)
        receivingTeam = try c.decodeIfPresent([String].self, forKey: .receivingTeam) ?? []
        caFile = try c.decodeIfPresent(String.self, forKey: .caFile)
        requestTimeout = try c.decodeIfPresent(Double.self, forKey: .requestTimeout) ?? requestTimeout
        maxInFlight = try c.decodeIfPresent(Int.self, forKey: .maxInFlight) ?? maxInFlight
    }

    /// Checks the values; the message names the key.
    public func validate() throws(FCMError) {
        func invalid(_ key: String, _ why: String) -> FCMError {
            FCMError(.invalidConfiguration, "push.\(key) \(why)", context: ["key": "push." + key])
        }
        let lower = endpoint.lowercased()
        guard lower.hasPrefix("https://") || PlainHTTP.isLoopback(endpoint) else {
            throw invalid("endpoint", "must be an https:// URL (plain http only to 127.0.0.1, ::1 or localhost)")
        }
        guard !endpoint.contains(where: { $0.isWhitespace || $0 == "?" || $0 == "#" }), !endpoint.hasSuffix("/") else {
            throw invalid("endpoint", "must be a base URL without spaces, a query, a fragment or a trailing slash")
        }
        if let projectID, projectID.isEmpty || projectID.contains(where: { !($0.isLetter || $0.isNumber || $0 == "-") }) {
            throw invalid("project_id", "must be a Firebase project id (letters, digits, -)")
        }
        guard requestTimeout >= FCMClient.minimumRequestTimeout, requestTimeout <= 600 else {
            throw invalid("request_timeout", "must be 10-600 seconds (PSH-9)")
        }
        guard (1...1000).contains(maxInFlight) else { throw invalid("max_in_flight", "must be 1-1000") }
        for user in receivingTeam where user.isEmpty || user.utf8.count > 200 || user.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw invalid("receiving_team", "entries must be user ids of 1-200 bytes without control characters")
        }
    }

}
