import EdgeHTTP
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import NIOSSL
import NIOTLS
import Synchronization

/// HTTP/2 over TLS to one authority (host and port) for `FCMTransport`: up to
/// `TransportOptions.maxConnectionsPerHost` connections on one event loop, each carrying requests as streams through an
/// `HTTP2StreamRouter`. A server that does not choose h2 by ALPN is reported once
/// (`.useHTTP1`), and the transport sends that authority's requests through AsyncHTTPClient.
///
/// Decisions:
/// - One event loop for the authority's connections and this client's state: a request costs
///   one hop onto the loop and one back, and nothing here needs a lock.
/// - A request waits for a connection no longer than its deadline; its deadline covers the
///   connection, the TLS handshake and the whole answer (`TransportOptions.totalTimeout`, as
///   libcurl's CURLOPT_TIMEOUT_MS does), checked every `sweepSeconds`.
/// - A new connection is opened when every open one has as many streams as its server allows;
///   at `maxConnectionsPerHost` requests go to the least busy one, whose HTTP/2 handler holds
///   streams above the server's limit until others close.
/// - Connections stay open until the server closes them (FCM ends idle ones with GOAWAY), they
///   run out of stream IDs, or the transport shuts down: the relay sends in bursts, and a new
///   TLS handshake for each would cost more than the idle connection.
final class HTTP2Client: @unchecked Sendable {
    /// What a request came to.
    enum Outcome: Sendable {
        case answered(HTTPResponse)
        case failed(TransportError)
        /// The server chose HTTP/1.1 (or nothing) by ALPN: send it another way.
        case useHTTP1
    }

    /// Streams a connection is expected to take before its server's SETTINGS say (FCM: 100).
    static let expectedStreamLimit = 100
    /// Deadlines are checked this often (seconds).
    static let sweepSeconds = 0.05

    let loop: any EventLoop
    private let host: String
    private let port: Int
    private let authority: String
    private let sslContext: NIOSSLContext
    private let options: TransportOptions
    // The rest is touched only on `loop` (hence @unchecked Sendable).
    private var connections: [HTTP2StreamRouter] = []
    private var connecting = 0
    private var waiting: [HTTP2Request] = []
    private var sweeping = false
    private var closed = false
    private var spokeHTTP1 = false
    /// Requests started and not finished, for the deadline sweep.
    private var requests: [ObjectIdentifier: HTTP2Request] = [:]

    init(host: String, port: Int, sslContext: NIOSSLContext, options: TransportOptions, loop: any EventLoop) {
        self.host = host
        self.port = port
        self.authority = port == 443 ? host : "\(host):\(port)"
        self.sslContext = sslContext
        self.options = options
        self.loop = loop
    }

    /// Sends `request` (`path` is its path and query) and waits for the whole answer.
    func send(method: String, path: String, headers: [HTTPHeader], body: [UInt8]) async -> Outcome {
        var fields = HPACKHeaders()
        fields.reserveCapacity(headers.count + 6)
        fields.add(name: ":method", value: method)
        fields.add(name: ":scheme", value: "https")
        fields.add(name: ":authority", value: authority)
        fields.add(name: ":path", value: path)
        var agent = false
        for header in headers {
            let name = ASCIILowercase.string(header.name)
            // Connection-specific fields are not allowed in HTTP/2 (RFC 9113 8.2.2).
            if name == "connection" || name == "keep-alive" || name == "transfer-encoding" || name == "upgrade" || name == "host" { continue }
            if name == "user-agent" { agent = true }
            fields.add(name: name, value: header.value)
        }
        if !agent { fields.add(name: "user-agent", value: options.userAgent) }
        let buffer = body.isEmpty ? nil : ByteBuffer(bytes: body)
        if let buffer { fields.add(name: "content-length", value: String(buffer.readableBytes)) }
        let deadline = NIODeadline.now() + .nanoseconds(Int64(options.totalTimeout * 1e9))
        let request = HTTP2Request(headers: fields, body: buffer, maxResponseBytes: options.maxResponseBytes, deadline: deadline)
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Outcome, Never>) in
                request.continuation = continuation
                if Task.isCancelled {
                    request.finish(.failure(TransportError(.cancelled, "The FCM request was cancelled.", context: [:])))
                    return
                }
                // A send already on the loop (FCMTransport.preferredExecutor) starts here.
                if loop.inEventLoop { start(request) } else { loop.execute { self.start(request) } }
            }
        } onCancel: {
            request.cancelled.store(true, ordering: .releasing)
            loop.execute { self.abandon(request, TransportError(.cancelled, "The FCM request was cancelled.", context: [:])) }
        }
    }

    /// Closes every connection; requests open or waiting fail as cancelled.
    func shutdown() {
        loop.execute {
            self.closed = true
            for request in self.waiting { request.finish(.failure(TransportError(.cancelled, "The FCM transport was shut down.", context: [:]))) }
            self.waiting = []
            for router in self.connections { router.close() }
            self.connections = []
        }
    }

    // MARK: On the loop

    private func start(_ request: HTTP2Request) {
        if request.cancelled.load(ordering: .acquiring) {
            request.finish(.failure(TransportError(.cancelled, "The FCM request was cancelled.", context: [:])))
            return
        }
        guard !closed else {
            request.finish(.failure(TransportError(.cancelled, "The FCM transport was shut down.", context: [:])))
            return
        }
        guard !spokeHTTP1 else {
            request.finishHTTP1()
            return
        }
        track(request)
        dispatch(request)
    }

    private func dispatch(_ request: HTTP2Request) {
        let ready = connections.filter { $0.accepting }
        if let free = ready.first(where: { $0.open < $0.peerStreamLimit }), free.start(request) {
            request.router = free
            return
        }
        // Connections on their way take this many each (FCM's limit) before another is opened:
        // a burst would otherwise open every allowed connection at once and pile onto the first.
        if waiting.count < connecting * Self.expectedStreamLimit {
            waiting.append(request)
            return
        }
        if ready.count + connecting < max(1, options.maxConnectionsPerHost) {
            waiting.append(request)
            connect()
            return
        }
        if let busy = ready.min(by: { $0.open < $1.open }), busy.start(request) {
            request.router = busy
            return
        }
        // Every connection is retiring and a new one is on its way.
        waiting.append(request)
        if connecting == 0 { connect() }
    }

    private func connect() {
        connecting += 1
        let connectTimeout = TimeAmount.nanoseconds(Int64(options.connectTimeout * 1e9))
        let sslContext = sslContext
        // SNI and the certificate's name are the host; an IP address is checked against the
        // certificate's IP entries by NIOSSL itself (SNI cannot carry one).
        let serverHostname = (try? SocketAddress(ipAddress: host, port: 0)) == nil ? host : nil
        let negotiated = loop.makePromise(of: String?.self)
        ClientBootstrap(group: loop)
            .connectTimeout(connectTimeout)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: sslContext, serverHostname: serverHostname))
                    try channel.pipeline.syncOperations.addHandler(ALPNWaiter(negotiated))
                }
            }
            .connect(host: host, port: port)
            .flatMap { channel in negotiated.futureResult.map { (channel, $0) } }
            .whenComplete { result in
                // A connect that failed before the pipeline was built leaves the promise open.
                if case .failure(let error) = result { negotiated.fail(error) }
                self.connected(result)
            }
    }

    private func connected(_ result: Result<(any Channel, String?), any Error>) {
        connecting -= 1
        switch result {
        case .success((let channel, let negotiated)):
            guard !closed else {
                channel.close(promise: nil)
                return
            }
            guard negotiated == "h2" else {
                channel.close(promise: nil)
                spokeHTTP1 = true
                let waiting = self.waiting
                self.waiting = []
                for request in waiting {
                    untrack(request)
                    request.finishHTTP1()
                }
                return
            }
            let router = HTTP2StreamRouter()
            do {
                let pipeline = channel.pipeline.syncOperations
                try pipeline.removeHandler(pipeline.handler(type: ALPNWaiter.self))
                // Each stream's window is larger than any answer taken, so only the connection's
                // window needs giving back (HTTP2StreamRouter).
                let streamWindow = min(Int(Int32.max), max(65_535, options.maxResponseBytes + 1))
                try pipeline.addHandler(NIOHTTP2Handler(mode: .client, initialSettings: [
                    HTTP2Setting(parameter: .enablePush, value: 0),
                    HTTP2Setting(parameter: .maxConcurrentStreams, value: 100),
                    HTTP2Setting(parameter: .initialWindowSize, value: streamWindow),
                    HTTP2Setting(parameter: .maxHeaderListSize, value: 64 * 1024),
                ]))
                try pipeline.addHandler(router)
            } catch {
                channel.close(promise: nil)
                failWaiting(FCMTransport.transportError(error, context: [:]))
                return
            }
            router.onRetire = { [unowned router] in self.retired(router) }
            connections.append(router)
            let waiting = self.waiting
            self.waiting = []
            for request in waiting { dispatch(request) }
        case .failure(let error):
            failWaiting(FCMTransport.transportError(error, context: [:]))
        }
    }

    /// A connection failed to open: the requests waiting for it go to a connection that is
    /// open, or wait for one still being opened, or fail with `error`. Never a new attempt from
    /// here: a server that refuses would be asked again at once, for ever.
    private func failWaiting(_ error: TransportError) {
        let waiting = self.waiting
        self.waiting = []
        for request in waiting {
            if let router = connections.filter(\.accepting).min(by: { $0.open < $1.open }), router.start(request) {
                request.router = router
            } else if connecting > 0 {
                self.waiting.append(request)
            } else {
                untrack(request)
                request.finish(.failure(error))
            }
        }
    }

    private func retired(_ router: HTTP2StreamRouter) {
        connections.removeAll { $0 === router }
        if router.open == 0 { router.close() }
    }

    private func abandon(_ request: HTTP2Request, _ error: TransportError) {
        untrack(request)
        if let router = request.router {
            router.abandon(request, error)
        } else if let index = waiting.firstIndex(where: { $0 === request }) {
            waiting.remove(at: index)
            request.finish(.failure(error))
        }
        // Not found: it finished already, or has not reached the loop (then `start` sees the flag).
    }

    // MARK: Deadlines

    private func track(_ request: HTTP2Request) {
        requests[ObjectIdentifier(request)] = request
        request.onFinish = { [weak self] in self?.requests[ObjectIdentifier(request)] = nil }
        guard !sweeping else { return }
        sweeping = true
        loop.scheduleTask(in: .nanoseconds(Int64(Self.sweepSeconds * 1e9))) { self.sweep() }
    }

    private func untrack(_ request: HTTP2Request) {
        requests[ObjectIdentifier(request)] = nil
    }

    private func sweep() {
        let now = NIODeadline.now()
        for request in requests.values where request.deadline <= now {
            abandon(request, TransportError(.timedOut, "The FCM request timed out.", context: ["seconds": String(options.totalTimeout)]))
        }
        if requests.isEmpty {
            sweeping = false
        } else {
            loop.scheduleTask(in: .nanoseconds(Int64(Self.sweepSeconds * 1e9))) { self.sweep() }
        }
    }
}

/// One request on its way through `HTTP2Client`: what to send, its deadline, and the
/// continuation its caller waits on, resumed exactly once.
final class HTTP2Request: @unchecked Sendable {
    let headers: HPACKHeaders
    let body: ByteBuffer?
    let maxResponseBytes: Int
    let deadline: NIODeadline
    /// Set by the caller's cancellation handler (any thread); read on the loop.
    let cancelled = Atomic<Bool>(false)
    // Touched only on the loop once the request has reached it.
    var continuation: UnsafeContinuation<HTTP2Client.Outcome, Never>?
    var streamID: HTTP2StreamID?
    weak var router: HTTP2StreamRouter?
    var onFinish: (() -> Void)?

    init(headers: HPACKHeaders, body: ByteBuffer?, maxResponseBytes: Int, deadline: NIODeadline) {
        self.headers = headers
        self.body = body
        self.maxResponseBytes = maxResponseBytes
        self.deadline = deadline
    }

    func finish(_ result: Result<HTTPResponse, TransportError>) {
        switch result {
        case .success(let response): resume(.answered(response))
        case .failure(let error): resume(.failed(error))
        }
    }

    func finishHTTP1() { resume(.useHTTP1) }

    private func resume(_ outcome: HTTP2Client.Outcome) {
        guard let continuation else { return }
        self.continuation = nil
        let done = onFinish
        onFinish = nil
        done?()
        continuation.resume(returning: outcome)
    }
}

/// Waits for the TLS handshake and reports the protocol ALPN chose.
final class ALPNWaiter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    /// Completed once; later completions of an EventLoopPromise are ignored.
    private let promise: EventLoopPromise<String?>

    init(_ promise: EventLoopPromise<String?>) {
        self.promise = promise
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted(let negotiatedProtocol) = event as? TLSUserEvent {
            promise.succeed(negotiatedProtocol)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(ChannelError.eof)
        context.fireChannelInactive()
    }
}
