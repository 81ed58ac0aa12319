import EdgeCore
import EdgeHTTP
import EdgeStore
import FoundationEssentials

/// The `sync` section of the station configuration (models/edge-config.schema.json).
///
/// Decisions: there is no default backend URL, so a station without one never talks to anything
/// (in particular never to the stand-in); `requests_per_minute` can lower the SYN-8 limit of
/// 100, never raise it; plain `http://` is accepted only for loopback (the transport enforces
/// it too).
public struct SyncSettings: Sendable, Hashable, Decodable {
    public static let defaultDatabase = "/var/lib/edge/edge.sqlite"
    public static let defaultTokenSecret = "sync.token"

    public var baseURL: String
    public var database: String
    /// `sha256//<base64>` SPKI pins (SYN-5); empty means no pinning, CA verification only.
    public var pins: [String]
    public var caFile: String?
    public var connectTimeout: Double
    public var totalTimeout: Double
    public var maxEntries: Int
    public var maxBytes: Int
    /// The vault secret holding the station's bearer token.
    public var tokenSecret: String
    public var requestsPerMinute: Int

    /// The keys of the `sync` section (unknown ones are refused by the station's loader).
    public static let configurationKeys = ConfigurationKeys.object(CodingKeys.self)

    enum CodingKeys: String, CodingKey, CaseIterable {
        case baseURL = "base_url", database, pins, caFile = "ca_file", connectTimeout = "connect_timeout",
             totalTimeout = "total_timeout", maxEntries = "max_entries", maxBytes = "max_bytes",
             tokenSecret = "token_secret", requestsPerMinute = "requests_per_minute"
    }

    public init(baseURL: String, database: String = SyncSettings.defaultDatabase) {
        self.baseURL = baseURL
        self.database = database
        pins = []
        caFile = nil
        connectTimeout = 10
        totalTimeout = 30
        maxEntries = OutboxLimits.standard.maxEntries
        maxBytes = OutboxLimits.standard.maxBytes
        tokenSecret = Self.defaultTokenSecret
        requestsPerMinute = 100
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(baseURL: try c.decode(String.self, forKey: .baseURL),
                  database: try c.decodeIfPresent(String.self, forKey: .database) ?? Self.defaultDatabase)
        pins = try c.decodeIfPresent([String].self, forKey: .pins) ?? []
        caFile = try c.decodeIfPresent(String.self, forKey: .caFile)
        connectTimeout = try c.decodeIfPresent(Double.self, forKey: .connectTimeout) ?? connectTimeout
        totalTimeout = try c.decodeIfPresent(Double.self, forKey: .totalTimeout) ?? totalTimeout
        maxEntries = try c.decodeIfPresent(Int.self, forKey: .maxEntries) ?? maxEntries
        maxBytes = try c.decodeIfPresent(Int.self, forKey: .maxBytes) ?? maxBytes
        tokenSecret = try c.decodeIfPresent(String.self, forKey: .tokenSecret) ?? tokenSecret
        requestsPerMinute = try c.decodeIfPresent(Int.self, forKey: .requestsPerMinute) ?? requestsPerMinute
    }

    /// Checks the values; the message names the key.
    public func validate() throws(SyncError) {
        func invalid(_ key: String, _ why: String) -> SyncError {
            SyncError(.invalidConfiguration, "sync.\(key) \(why)", context: ["key": "sync." + key])
        }
        let lower = baseURL.lowercased()
        guard lower.hasPrefix("https://") || PlainHTTP.isLoopback(baseURL) else {
            throw invalid("base_url", "must be an https:// URL (plain http only to 127.0.0.1, ::1 or localhost)")
        }
        guard !baseURL.contains(where: { $0.isWhitespace || $0 == "?" || $0 == "#" }) else {
            throw invalid("base_url", "must not contain spaces, a query or a fragment")
        }
        guard !database.isEmpty else { throw invalid("database", "must be a file path") }
        for pin in pins where !(pin.hasPrefix("sha256//") && pin.utf8.count == 52) {
            throw invalid("pins", "entries must look like sha256//<44 base64 characters>")
        }
        guard connectTimeout > 0, connectTimeout <= 300 else { throw invalid("connect_timeout", "must be 0-300 seconds") }
        guard totalTimeout > 0, totalTimeout <= 600 else { throw invalid("total_timeout", "must be 0-600 seconds") }
        guard maxEntries > 0, maxBytes > 0 else { throw invalid("max_entries", "and max_bytes must be positive") }
        guard (1...100).contains(requestsPerMinute) else { throw invalid("requests_per_minute", "must be 1-100 (SYN-8)") }
    }

    public var limits: OutboxLimits { OutboxLimits(maxEntries: maxEntries, maxBytes: maxBytes) }
}
