import Glibc

/// HTTP(S) for the sync core and the FCM client over the system libcurl (SYN-5): TLS always verified, optional
/// SPKI pins, connect and total timeouts, HTTP/2 where the server offers it, and connection
/// reuse across requests through one shared multi handle on one network thread.
///
/// `send` checks the request (URL scheme and host, header syntax) before any traffic, then
/// suspends until the answer is complete. Any HTTP status is a response, not an error; only
/// failures to get a complete answer throw. Cancelling the calling task stops the request and
/// throws `.cancelled`. Redirects are not followed: a 3xx is returned as it is.
///
/// Call `shutdown()` when done (deinit does it too): requests in flight fail with `.cancelled`.
public final class CurlTransport: Sendable {
    private let options: TransportOptions
    /// The pins joined for CURLOPT_PINNEDPUBLICKEY, or nil when none are configured.
    private let pins: String?
    private let loop: CurlMultiLoop

    public init(options: TransportOptions = .init()) throws(TransportError) {
        try Self.validate(options)
        try Curl.initializeGlobally()
        self.options = options
        pins = options.pinnedPublicKeys.isEmpty ? nil : options.pinnedPublicKeys.joined(separator: ";")
        loop = try CurlMultiLoop(maxConnectionsPerHost: options.maxConnectionsPerHost, maxConcurrentStreams: options.maxConcurrentStreams)
    }

    deinit {
        loop.shutdown()
    }

    /// Sends `request` and returns the server's final response, whatever its status.
    public func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        let transfer = try CurlTransfer.make(id: loop.nextID(), request: request, options: options, pins: pins)
        guard loop.register(transfer) else {
            throw TransportError(.cancelled, "The transport is shut down.", context: transfer.context.merging(["reason": "shutdown"]) { _, new in new })
        }
        let loop = self.loop
        let id = transfer.id
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                loop.start(id, continuation: continuation)
            }
        } onCancel: {
            loop.cancel(id)
        }
        return try result.get()
    }

    /// Fails requests in flight with `.cancelled` (context reason "shutdown"), refuses new ones,
    /// stops the network thread and closes all connections. Blocks until the thread has stopped
    /// (one `curl_multi_perform` step at most). Safe to call more than once.
    public func shutdown() {
        loop.shutdown()
    }

    private static func validate(_ options: TransportOptions) throws(TransportError) {
        func invalid(_ message: String, _ field: String) -> TransportError {
            TransportError(.invalidOptions, message, context: ["option": field])
        }
        for (name, seconds) in [("connectTimeout", options.connectTimeout), ("totalTimeout", options.totalTimeout)] {
            guard seconds.isFinite, seconds > 0, seconds <= 86_400 else {
                throw invalid("A transport timeout must be between 0 and 86400 seconds.", name)
            }
        }
        guard options.maxResponseBytes > 0 else { throw invalid("The response size limit must be positive.", "maxResponseBytes") }
        guard (1...100).contains(options.maxConcurrentStreams) else {
            throw invalid("HTTP/2 streams per connection must be 1 to 100 (PSH-10).", "maxConcurrentStreams")
        }
        guard options.maxConnectionsPerHost > 0 else {
            throw invalid("At least one connection per host must be allowed.", "maxConnectionsPerHost")
        }
        guard !options.userAgent.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
            throw invalid("The user agent must not contain control characters.", "userAgent")
        }
        for pin in options.pinnedPublicKeys where !isValidPin(pin) {
            // The pin is a public-key hash, not a secret, but it adds nothing for the operator.
            throw invalid("A pinned public key must be \"sha256//\" followed by a base64 SHA-256 hash.", "pinnedPublicKeys")
        }
        if let caFile = options.caFile {
            guard access(caFile, R_OK) == 0 else {
                throw TransportError(.invalidOptions, "The CA file cannot be read.", context: ["option": "caFile", "path": caFile])
            }
        }
    }

    /// `sha256//` + 44 base64 characters (32 bytes, one `=` of padding).
    static func isValidPin(_ pin: String) -> Bool {
        let prefix = "sha256//"
        guard pin.hasPrefix(prefix) else { return false }
        let hash = Array(pin.utf8.dropFirst(prefix.utf8.count))
        guard hash.count == 44, hash[43] == UInt8(ascii: "=") else { return false }
        return hash.dropLast().allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "+"), UInt8(ascii: "/"):
                true
            default:
                false
            }
        }
    }
}
