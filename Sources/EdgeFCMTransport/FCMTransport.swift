import AsyncHTTPClient
import EdgeHTTP
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// The FCM path's HTTP transport: swift-nio-http2 instead of libcurl. https requests go as
/// HTTP/2 frames over `HTTP2Client`'s own connections (issue #31: AsyncHTTPClient's stream
/// channels cost the relay ~40 % of its instructions per notification); plain http to loopback
/// (tests) and a server that does not choose h2 go through AsyncHTTPClient.
///
/// Why not `CurlTransport` here (issue #17): Debian 12's libcurl 7.88 sends RST_STREAM
/// (STREAM_CLOSED) for HTTP/2 streams it has finished before it saw them closed
/// (`http2_data_done`). At the relay's rate those resets trip the rapid-reset guard every
/// HTTP/2 front end now has (swift-nio-http2: 200 per 30 s per connection), the server answers
/// GOAWAY(ENHANCE_YOUR_CALM), and curl re-sends every request in flight on a new connection:
/// 5,155-5,261 sends reached the stand-in for 5,000 notifications, and sends waited 0.5-2 s.
/// `CURLOPT_IGNORE_CONTENT_LENGTH` does not stop the resets, and no newer libcurl is in
/// Debian 12. swift-nio-http2's client closes streams without resetting them. It is already in
/// the graph (Hummingbird, the stand-in). Everything else keeps libcurl (SPKI pinning, the sync
/// core's precise timeouts).
///
/// Same contract as `CurlTransport`: TLS always verified (an extra CA file replaces the system
/// roots, as `CURLOPT_CAINFO` does), plain http only to loopback, no redirects, response bodies
/// bounded by `maxResponseBytes`, one deadline per request (`totalTimeout`). SPKI pins are not
/// supported on this path and are refused when configured. Streams per connection follow the
/// server's SETTINGS_MAX_CONCURRENT_STREAMS (HTTP2Client opens another connection, up to
/// `maxConnectionsPerHost`, when they are all taken): FCM and the stand-in announce 100, PSH-10's
/// limit, and the sender keeps at most `maxInFlight` open.
public final class FCMTransport: HTTPTransport {
    private let client: HTTPClient
    private let options: TransportOptions
    /// TLS offering h2 first by ALPN, for `HTTP2Client`.
    private let http2TLS: NIOSSLContext
    /// One HTTP/2 client per authority ("host:port"), made on first use.
    private let http2Clients = Mutex<[String: HTTP2Client]>([:])
    /// The one event loop of every `HTTP2Client` here, as the executor callers may prefer: a
    /// send task run there starts its request and takes its answer without changing threads.
    private let http2Executor: EventLoopTaskExecutor

    public var preferredExecutor: (any TaskExecutor)? { http2Executor }

    public init(options: TransportOptions) throws(TransportError) {
        guard options.pinnedPublicKeys.isEmpty else {
            throw TransportError(.invalidOptions, "SPKI pins are not supported on the FCM transport.", context: [:])
        }
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .fullVerification
        if let caFile = options.caFile { tls.trustRoots = .file(caFile) }
        // http/1.1 is offered too: a server that has only that answers a lone h2 with a fatal
        // no_application_protocol alert (RFC 7301 3.2) instead of choosing nothing.
        var http2 = tls
        http2.applicationProtocols = ["h2", "http/1.1"]
        do {
            http2TLS = try NIOSSLContext(configuration: http2)
        } catch {
            throw TransportError(.invalidOptions, "The TLS settings for FCM cannot be used (the CA file cannot be read?).",
                                 context: ["caFile": options.caFile ?? ""])
        }
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls, redirectConfiguration: .disallow,
            timeout: .init(connect: .milliseconds(Int64(options.connectTimeout * 1000))),
            connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: options.maxConnectionsPerHost),
            ignoreUncleanSSLShutdown: false, decompression: .disabled)
        configuration.httpVersion = .automatic
        client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
        http2Executor = EventLoopTaskExecutor(MultiThreadedEventLoopGroup.singleton.next())
        self.options = options
    }

    /// Closes the connections; requests after this fail. Returns at once (callers shut down
    /// from `defer`, as they do `CurlTransport`); the close finishes in the background.
    public func shutdown() {
        let client = self.client
        Task { try? await client.shutdown() }
        for http2 in http2Clients.withLock({ Array($0.values) }) { http2.shutdown() }
    }

    /// A transport dropped without `shutdown()` (a part that failed after building it) still
    /// closes its client, which AsyncHTTPClient requires before the client goes away.
    deinit {
        let client = self.client
        Task { try? await client.shutdown() }
        for http2 in http2Clients.withLock({ Array($0.values) }) { http2.shutdown() }
    }

    public func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        // The error context is built only for an error: every request paid for it before (issue #31).
        func context() -> [String: String] { ["method": request.method.rawValue, "url": URLRedaction.printable(request.url)] }
        // An https URL HTTP2Target can parse is allowed; only the rest pay for isAllowed's
        // lower-cased copy of the URL (~8k instructions a request, issue #31).
        let target = HTTP2Target(request.url)
        guard target != nil || Self.isAllowed(request.url) else {
            throw TransportError(.insecureURL, "Only https URLs (or http to this machine) are allowed.", context: context())
        }
        if let target {
            let http2 = http2Clients.withLock { clients in
                if let known = clients[target.authority] { return known }
                let made = HTTP2Client(host: target.host, port: target.port, sslContext: http2TLS, options: options,
                                       loop: http2Executor.loop)
                clients[target.authority] = made
                return made
            }
            switch await http2.send(method: request.method.rawValue, path: target.path, headers: request.headers, body: request.body) {
            case .answered(let response): return response
            case .failed(let error): throw TransportError(error.code, error.message, context: error.context.merging(context()) { $1 })
            case .useHTTP1: break
            }
        }
        var outgoing = HTTPClientRequest(url: request.url)
        outgoing.method = NIOHTTP1.HTTPMethod(rawValue: request.method.rawValue)
        outgoing.headers.add(name: "User-Agent", value: options.userAgent)
        for header in request.headers { outgoing.headers.add(name: header.name, value: header.value) }
        if !request.body.isEmpty { outgoing.body = .bytes(ByteBuffer(bytes: request.body)) }
        do {
            let timeout = Int64(options.totalTimeout * 1000)
            let deadline = ContinuousClock.now + .milliseconds(timeout)
            let response = try await client.execute(outgoing, timeout: .milliseconds(timeout))
            // AsyncHTTPClient's deadline ends with the answer's head; a body sent a byte at a
            // time (issue #30 item 4) would keep the relay waiting well past the timeout.
            let body = try await Self.collect(response.body, upTo: options.maxResponseBytes, before: deadline)
            return HTTPResponse(status: Int(response.status.code), headers: response.headers.map { HTTPHeader($0.name, $0.value) },
                                body: Array(buffer: body), version: response.version.major == 2 ? .http2 : .http1_1)
        } catch {
            throw Self.transportError(error, context: context())
        }
    }

    /// The whole body, or `.timedOut` at `deadline` (the body's read is cancelled, which closes
    /// the request).
    static func collect(_ body: HTTPClientResponse.Body, upTo limit: Int, before deadline: ContinuousClock.Instant) async throws -> ByteBuffer {
        try await withThrowingTaskGroup(of: ByteBuffer?.self) { group in
            group.addTask { try await body.collect(upTo: limit) }
            group.addTask {
                try await Task.sleep(until: deadline, clock: .continuous)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let buffer = first else {
                throw HTTPClientError.deadlineExceeded
            }
            return buffer
        }
    }

    /// Where an https URL goes: host, port and the path with its query; nil for anything else
    /// (plain http, user information in the authority, a bad port), which AsyncHTTPClient
    /// takes or refuses.
    struct HTTP2Target {
        let authority: String
        let host: String
        let port: Int
        let path: String

        init?(_ url: String) {
            let bytes = Array(url.utf8)
            let scheme = Array("https://".utf8)
            guard bytes.count > scheme.count,
                  zip(bytes, scheme).allSatisfy({ ($0 | 0x20) == $1 || $0 == $1 }) else { return nil }
            let rest = bytes[scheme.count...]
            let authorityEnd = rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? rest.endIndex
            let authority = rest[..<authorityEnd]
            guard !authority.isEmpty, !authority.contains(UInt8(ascii: "@")) else { return nil }
            var host = authority[...]
            var port = 443
            if authority.first == UInt8(ascii: "[") {
                guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else { return nil }
                host = authority[(authority.startIndex + 1)..<close]
                let after = authority[(close + 1)...]
                if !after.isEmpty {
                    guard after.first == UInt8(ascii: ":"), let value = Int(String(decoding: after.dropFirst(), as: UTF8.self)) else { return nil }
                    port = value
                }
            } else if let colon = authority.lastIndex(of: UInt8(ascii: ":")) {
                host = authority[..<colon]
                guard let value = Int(String(decoding: authority[(colon + 1)...], as: UTF8.self)) else { return nil }
                port = value
            }
            guard !host.isEmpty, (1...65535).contains(port) else { return nil }
            // The fragment is the client's; the path and query go to the server.
            let fragment = rest[authorityEnd...].firstIndex(of: UInt8(ascii: "#")) ?? rest.endIndex
            let path = rest[authorityEnd..<fragment]
            self.authority = String(decoding: authority, as: UTF8.self)
            self.host = String(decoding: host, as: UTF8.self)
            self.port = port
            self.path = path.isEmpty ? "/" : (path.first == UInt8(ascii: "?") ? "/" : "") + String(decoding: path, as: UTF8.self)
        }
    }

    /// https anywhere; http only to a loopback host (the tests' and the benchmark's stand-in).
    static func isAllowed(_ url: String) -> Bool {
        let lower = url.lowercased()
        if lower.hasPrefix("https://") { return true }
        guard lower.hasPrefix("http://") else { return false }
        let rest = lower.dropFirst("http://".count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.contains("@") else { return false }
        let host: Substring
        if authority.hasPrefix("[") {
            host = authority.prefix { $0 != "]" }.dropFirst()
        } else {
            host = authority.prefix { $0 != ":" }
        }
        return host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// AsyncHTTPClient's and NIO's errors as the transport's codes, which `FCMClient` retries by.
    static func transportError(_ error: any Error, context: [String: String]) -> TransportError {
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout:
                return TransportError(.couldNotConnect, "The FCM endpoint could not be reached in time.", context: context)
            case .deadlineExceeded, .readTimeout, .writeTimeout:
                return TransportError(.timedOut, "The FCM request timed out.", context: context)
            case .remoteConnectionClosed, .uncleanShutdown:
                return TransportError(.connectionDropped, "The connection to the FCM endpoint closed under the request.", context: context)
            case .cancelled, .requestStreamCancelled:
                return TransportError(.cancelled, "The FCM request was cancelled.", context: context)
            case .invalidURL, .emptyHost, .emptyScheme:
                return TransportError(.invalidURL, "The FCM URL is not valid.", context: context)
            default:
                return TransportError(.protocolError, "The FCM endpoint's answer broke the protocol (\(error)).", context: context)
            }
        }
        if error is CancellationError {
            return TransportError(.cancelled, "The FCM request was cancelled.", context: context)
        }
        if error is NIOTooManyBytesError {
            return TransportError(.responseTooLarge, "The FCM endpoint's answer is too large.", context: context)
        }
        if error is NIOSSLError || error is NIOSSLExtraError {
            return TransportError(.tlsFailure, "The TLS connection to the FCM endpoint failed.", context: context)
        }
        if error is NIOConnectionError || error is ChannelError {
            return TransportError(.couldNotConnect, "The FCM endpoint could not be reached.", context: context)
        }
        return TransportError(.connectionDropped, "The FCM request failed (\(String(describing: type(of: error)))).", context: context)
    }
}
