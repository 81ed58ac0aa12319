import EdgeAgent
import EdgeCore
import FoundationEssentials

/// The `ui` section of edge.json (UI-1, models/edge-config.schema.json): where the kiosk listens.
///
/// Decisions: 127.0.0.1:8080 when the section is absent (the kiosk's browser runs on the station,
/// and edge-kiosk.service opens that address). Any other address is reachable from the network,
/// so it needs TLS (`tls_certificate` / `tls_key`, PEM files) and an operator PIN kept in the vault
/// (`pin_secret`, `edge vault put ui.pin`): `edge run` refuses to start otherwise rather than
/// serve the dock and the clinic to the whole LAN.
public struct KioskSettings: Sendable, Hashable, Decodable {
    public var host: String
    public var port: Int
    public var tlsCertificate: String?
    public var tlsKey: String?
    /// The vault secret holding the operator PIN (beyond loopback).
    public var pinSecret: String
    /// Set false to run a station without a screen (the UI is not served).
    public var enabled: Bool
    /// Ask for the operator PIN on loopback too (a kiosk in a public place); always on beyond it.
    public var requirePIN: Bool

    public static let defaultHost = "127.0.0.1"
    public static let defaultPort = 8080
    public static let defaultPinSecret = "ui.pin"

    public init(host: String = defaultHost, port: Int = defaultPort, tlsCertificate: String? = nil, tlsKey: String? = nil,
                pinSecret: String = defaultPinSecret, enabled: Bool = true, requirePIN: Bool = false) {
        self.host = host
        self.port = port
        self.tlsCertificate = tlsCertificate
        self.tlsKey = tlsKey
        self.pinSecret = pinSecret
        self.enabled = enabled
        self.requirePIN = requirePIN
    }

    /// True for 127.0.0.0/8 and ::1: only this machine's processes can connect.
    public var isLoopback: Bool { host == "::1" || host.hasPrefix("127.") }

    /// Beyond loopback the PIN guards every page and call (TLS keeps it and the session private).
    public var requiresPIN: Bool { requirePIN || !isLoopback }

    /// The section as the station's loader checks it: its keys (unknown ones are refused) and
    /// its values, whatever the station's role (AGT-10).
    public static let configurationSection = ConfigurationSection.decoding("ui", as: KioskSettings.self, keys: .object(CodingKeys.self))

    enum CodingKeys: String, CodingKey, CaseIterable {
        case listen
        case tlsCertificate = "tls_certificate"
        case tlsKey = "tls_key"
        case pinSecret = "pin_secret"
        case enabled
        case requirePIN = "require_pin"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let listen = try c.decodeIfPresent(String.self, forKey: .listen) ?? "\(Self.defaultHost):\(Self.defaultPort)"
        guard let (host, port) = Self.parse(listen) else {
            throw DecodingError.dataCorruptedError(forKey: .listen, in: c,
                                                   debugDescription: "must be HOST:PORT with an IPv4 address or [IPv6], port 0-65535 (e.g. 127.0.0.1:8080)")
        }
        self.host = host
        self.port = port
        tlsCertificate = try c.decodeIfPresent(String.self, forKey: .tlsCertificate)
        tlsKey = try c.decodeIfPresent(String.self, forKey: .tlsKey)
        pinSecret = try c.decodeIfPresent(String.self, forKey: .pinSecret) ?? Self.defaultPinSecret
        enabled = try c.decodeIfPresent(Bool.self, forKey: .enabled) ?? true
        requirePIN = try c.decodeIfPresent(Bool.self, forKey: .requirePIN) ?? false
        if (tlsCertificate == nil) != (tlsKey == nil) {
            throw DecodingError.dataCorruptedError(forKey: .tlsKey, in: c, debugDescription: "tls_certificate and tls_key go together")
        }
        if !isLoopback, tlsCertificate == nil {
            throw DecodingError.dataCorruptedError(forKey: .listen, in: c,
                                                   debugDescription: "\(listen) is reachable from the network: it needs tls_certificate and tls_key (and the operator PIN in the vault as \(pinSecret))")
        }
    }

    /// `HOST:PORT`, `[V6]:PORT`; hostnames are refused (what a name resolves to can change).
    static func parse(_ text: String) -> (String, Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port) else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
            guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" }) else { return nil }
            return (host, port)
        }
        if host == "localhost" { return ("127.0.0.1", port) }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts.allSatisfy({ $0.count <= 3 && UInt8($0) != nil }) else { return nil }
        return (host, port)
    }
}
