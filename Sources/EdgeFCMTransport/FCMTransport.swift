import AsyncHTTPClient
import EdgeHTTP
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// The FCM path's HTTP transport: AsyncHTTPClient (swift-nio-http2) instead of libcurl.
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
/// server's SETTINGS_MAX_CONCURRENT_STREAMS (AsyncHTTPClient has no client-side cap): FCM and the
/// stand-in announce 100, PSH-10's limit, and the sender keeps at most `maxInFlight` open.
public final class FCMTransport: HTTPTransport {
    private let client: HTTPClient
    private let options: TransportOptions

    public init(options: TransportOptions) throws(TransportError) {
        guard options.pinnedPublicKeys.isEmpty else {
            throw TransportError(.invalidOptions, "SPKI pins are not supported on the FCM transport.", context: [:])
        }
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .fullVerification
        if let caFile = options.caFile { tls.trustRoots = .file(caFile) }
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls, redirectConfiguration: .disallow,
            timeout: .init(connect: .milliseconds(Int64(options.connectTimeout * 1000))),
            connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: options.maxConnectionsPerHost),
            ignoreUncleanSSLShutdown: false, decompression: .disabled)
        configuration.httpVersion = .automatic
        client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
        self.options = options
    }

    /// Closes the connections; requests after this fail. Returns at once (callers shut down
    /// from `defer`, as they do `CurlTransport`); the close finishes in the background.
    public func shutdown() {
        let client = self.client
        Task { try? await client.shutdown() }
    }

    /// A transport dropped without `shutdown()` (a part that failed after building it) still
    /// closes its client, which AsyncHTTPClient requires before the client goes away.
    deinit {
        let client = self.client
        Task { try? await client.shutdown() }
    }

    public func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        // The error context is built only for an error: every request paid for it before (issue #31).
        func context() -> [String: String] { ["method": request.method.rawValue, "url": URLRedaction.printable(request.url)] }
        guard Self.isAllowed(request.url) else {
            throw TransportError(.insecureURL, "Only https URLs (or http to this machine) are allowed.", context: context())
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
