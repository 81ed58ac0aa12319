import EdgeContract
import Logging

/// How a stand-in backend is set up. Everything defaults to the safe choice: loopback, no control
/// API, no demo data, no static tokens.
public struct StandinConfiguration: Sendable {
    /// The only address the stand-in binds. Anything but `127.0.0.1` is refused before binding
    /// (`StandinError.notLoopback`): a stand-in must never be reachable from another machine, so a
    /// configuration mistake cannot turn it into a server (SYN-11).
    public var host: String
    /// Bearer tokens accepted besides the ones enrollment link / refresh issue (`--token`).
    public var staticTokens: [String]
    /// Serves the `/_standin/` control paths (faults, records, revocation, pulled changes). Off by
    /// default: they are test hooks, not part of the contract (`--control`).
    public var controlAPI: Bool
    /// Loads the demo purchase orders, vendors, materials, products and linking codes, consistent
    /// with samples/ (`--seed-demo-data`).
    public var seedDemoData: Bool
    /// The tenant the stations talking to this stand-in belong to; a vendor QR of another tenant is
    /// refused with 403 WRONG_TENANT (RCV-4).
    public var tenantID: String
    /// Largest request body read; larger ones are answered 413.
    public var maxBodyBytes: Int
    public var logLevel: Logger.Level
    /// The FCM stand-in (`POST /token`, `POST /v1/projects/{id}/messages:send`): the service
    /// account's public key (PEM) its JWTs must verify with, and the client_email they must name.
    /// Nil: those paths answer 404.
    public var fcmPublicKeyPEM: [UInt8]?
    public var fcmClientEmail: String?
    /// Lifetime of the access tokens `/token` issues.
    public var fcmTokenLifetime: Int
    /// Serve HTTPS with this certificate chain and key (PEM files), HTTP/2 or HTTP/1.1 by ALPN,
    /// as FCM speaks HTTP/2 over TLS (`--tls-cert`, `--tls-key`); nil: plain HTTP/1.1.
    ///
    /// Decision: no h2c (HTTP/2 without TLS): Debian 12's libcurl 7.88 fails every request that
    /// reuses a prior-knowledge h2c connection ("Error in the HTTP2 framing layer", curl issue
    /// 10634, fixed in 8.0), so only TLS gives the agent real HTTP/2 multiplexing here. The
    /// FaultInjector's faults act on streams, not connections, over HTTP/2.
    public var tls: StandinTLS?

    public static let loopbackHost = "127.0.0.1"

    /// `https` with TLS, else `http`.
    public var scheme: String { tls == nil ? "http" : "https" }

    public init(
        host: String = StandinConfiguration.loopbackHost,
        staticTokens: [String] = [],
        controlAPI: Bool = false,
        seedDemoData: Bool = false,
        tenantID: String = DemoData.tenantID,
        maxBodyBytes: Int = 4 << 20,
        logLevel: Logger.Level = .warning,
        fcmPublicKeyPEM: [UInt8]? = nil,
        fcmClientEmail: String? = nil,
        fcmTokenLifetime: Int = 3600,
        tls: StandinTLS? = nil
    ) {
        self.tls = tls
        self.fcmPublicKeyPEM = fcmPublicKeyPEM
        self.fcmClientEmail = fcmClientEmail
        self.fcmTokenLifetime = fcmTokenLifetime
        self.host = host
        self.staticTokens = staticTokens
        self.controlAPI = controlAPI
        self.seedDemoData = seedDemoData
        self.tenantID = tenantID
        self.maxBodyBytes = maxBodyBytes
        self.logLevel = logLevel
    }
}
