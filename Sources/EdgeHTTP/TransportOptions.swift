/// How `CurlTransport` talks to the backend. Checked by `CurlTransport.init` (`.invalidOptions`).
///
/// Decision: there is no option to turn TLS verification off. Every request sets
/// `CURLOPT_SSL_VERIFYPEER=1` and `CURLOPT_SSL_VERIFYHOST=2`; a test or a private backend brings
/// its own CA with `caFile` instead. A switch that exists gets flipped in production.
public struct TransportOptions: Sendable, Hashable {
    /// Seconds allowed for DNS, TCP and the TLS handshake (CURLOPT_CONNECTTIMEOUT_MS).
    public var connectTimeout: Double
    /// Seconds allowed for the whole request, connect included (CURLOPT_TIMEOUT_MS).
    public var totalTimeout: Double
    /// SPKI pins, each `sha256//<base64 of the SHA-256 of the DER SubjectPublicKeyInfo>`. When
    /// non-empty the server's key must match one of them (CURLOPT_PINNEDPUBLICKEY, joined with
    /// ";"), in addition to normal certificate verification.
    public var pinnedPublicKeys: [String]
    /// An extra CA bundle (PEM), e.g. a test CA. Decision: it is passed as CURLOPT_CAINFO, which
    /// replaces curl's default bundle *file*, while curl's default CA *directory* (Debian:
    /// /etc/ssl/certs, `--with-ca-path`) stays in use, so public CAs remain trusted too.
    public var caFile: String?
    /// Largest response body accepted; a larger one fails with `.responseTooLarge`.
    public var maxResponseBytes: Int
    /// Connections the transport opens to one host at most (CURLMOPT_MAX_HOST_CONNECTIONS);
    /// further requests wait for one (or share it, over HTTP/2).
    public var maxConnectionsPerHost: Int
    /// The User-Agent header sent when the request has none.
    public var userAgent: String
    /// HTTP/2 streams open at once on one connection (CURLMOPT_MAX_CONCURRENT_STREAMS), 1...100:
    /// PSH-10 allows 100; more requests wait, or open another connection up to
    /// `maxConnectionsPerHost`.
    public var maxConcurrentStreams = 100

    public init(connectTimeout: Double = 10, totalTimeout: Double = 30, pinnedPublicKeys: [String] = [],
                caFile: String? = nil, maxResponseBytes: Int = 4 * 1024 * 1024, maxConnectionsPerHost: Int = 4,
                userAgent: String = "edge") {
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
        self.pinnedPublicKeys = pinnedPublicKeys
        self.caFile = caFile
        self.maxResponseBytes = maxResponseBytes
        self.maxConnectionsPerHost = maxConnectionsPerHost
        self.userAgent = userAgent
    }
}
