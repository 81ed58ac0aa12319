import EdgeHTTP
import NIOCore
import NIOHPACK
import NIOHTTP2

/// One HTTP/2 connection's requests, as frames on the connection itself: a stream per request
/// with no child channel, each answer collected here, everything the connection loses failed
/// with the reason. Sits after `NIOHTTP2Handler` (which keeps the protocol: HPACK, stream
/// states, SETTINGS, PING, outbound flow control and the peer's stream limit, buffering streams
/// above it). Every method runs on the connection's event loop.
///
/// Why not AsyncHTTPClient's multiplexer (issue #31): it makes a channel, a pipeline and a
/// request state machine for every stream; in the relay's profile that was ~40 % of the
/// instructions per notification. FCM's requests are one small POST and one small answer each,
/// which this handles directly.
final class HTTP2StreamRouter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    /// The connection's own flow-control window the router keeps open for answers (bytes).
    static let connectionWindow = 16 * 1024 * 1024
    /// Client stream IDs are odd and below 2^31; a connection this close to the end takes no
    /// more streams and the client opens another.
    static let lastStreamID = Int(Int32.max) - 2

    /// One request between its HEADERS and the end of its answer.
    private struct Exchange {
        let request: HTTP2Request
        var status: Int?
        var headers: [HTTPHeader] = []
        var body: ByteBuffer?
    }

    private var context: ChannelHandlerContext?
    private var exchanges: [HTTP2StreamID: Exchange] = [:]
    private var nextStreamID = 1
    /// Answer bytes received and not yet given back to the connection window.
    private var unacknowledged = 0
    /// The peer's SETTINGS_MAX_CONCURRENT_STREAMS (RFC 9113: unlimited until it says; FCM and
    /// the stand-in say 100). Streams above it wait in `NIOHTTP2Handler`'s buffer.
    private(set) var peerStreamLimit = 100
    /// Cleared by GOAWAY, an error or the close: no new streams here.
    private(set) var accepting = true
    /// Called once when the router stops accepting streams, so the client forgets it.
    var onRetire: (() -> Void)?

    /// Requests open on this connection.
    var open: Int { exchanges.count }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        // The connection window starts at 65,535 (RFC 9113 6.9.2) whatever SETTINGS say.
        let increment = Self.connectionWindow - 65_535
        context.writeAndFlush(wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: increment))),
                              promise: nil)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        retire(TransportError(.connectionDropped, "The HTTP/2 connection to the FCM endpoint closed under the request.", context: [:]))
        self.context = nil
    }

    /// Opens a stream for `request` and sends it; false when this connection takes no more.
    func start(_ request: HTTP2Request) -> Bool {
        guard accepting, let context, nextStreamID <= Self.lastStreamID else {
            retireIfExhausted()
            return false
        }
        let streamID = HTTP2StreamID(nextStreamID)
        nextStreamID += 2
        request.streamID = streamID
        exchanges[streamID] = Exchange(request: request)
        let body = request.body
        // A stream NIOHTTP2Handler held back (above the server's limit) and then could not open
        // (GOAWAY came first) fails here, as never sent: safe to send again elsewhere.
        let opened = context.eventLoop.makePromise(of: Void.self)
        opened.futureResult.whenFailure { [weak self] _ in self?.notSent(streamID) }
        context.write(wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .headers(.init(headers: request.headers, endStream: body == nil)))),
                      promise: opened)
        if let body {
            context.write(wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .data(.init(data: .byteBuffer(body), endStream: true)))),
                          promise: nil)
        }
        // Decision: a flush per request. Coalescing the flushes of a burst (one TLS record and
        // one write(2) for many requests) cut the relay's writes from ~1 to ~0.4 per notification,
        // but then the stand-in, draining after a GOAWAY, closed the connection with more of the
        // streams it took unanswered (PushSenderHTTP2Tests: 22-51 repeated sends in 3 of 5 runs,
        // against 0-24 without), and the CPU gain was within the benchmark's noise.
        context.flush()
        retireIfExhausted()
        return true
    }

    private func notSent(_ streamID: HTTP2StreamID) {
        guard let exchange = exchanges.removeValue(forKey: streamID) else { return }
        exchange.request.finish(.failure(TransportError(.connectionDropped, "The FCM endpoint closed the connection before the request went out.",
                                                        context: [:])))
        closeIfDone()
    }

    /// Closes the connection; what is open fails as dropped (`channelInactive`).
    func close() {
        stopAccepting()
        context?.close(promise: nil)
    }

    /// Ends `request`'s stream early (its deadline passed, or its task was cancelled) with
    /// `error`, resetting the stream so the server stops working on it.
    func abandon(_ request: HTTP2Request, _ error: TransportError) {
        guard let streamID = request.streamID, exchanges.removeValue(forKey: streamID) != nil else { return }
        defer { closeIfDone() }
        request.finish(.failure(error))
        context?.writeAndFlush(wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .rstStream(.cancel))), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.payload {
        case .headers(let headers):
            received(headers.headers, endStream: headers.endStream, on: frame.streamID)
        case .data(let data):
            giveBack(data.data.readableBytes + (data.paddingBytes ?? 0), context: context)
            guard case .byteBuffer(let bytes) = data.data else { return }
            received(bytes, endStream: data.endStream, on: frame.streamID)
        case .goAway(let lastStreamID, _, _):
            // Streams above the last one the server will process were not processed: they fail
            // as dropped (safe to send again); the ones below finish here, and nothing new starts.
            stopAccepting()
            for (streamID, exchange) in exchanges where streamID > lastStreamID {
                exchanges[streamID] = nil
                exchange.request.finish(.failure(TransportError(
                    .connectionDropped, "The FCM endpoint closed the connection (GOAWAY) before it took the request.", context: [:])))
            }
        case .settings(.settings(let settings)):
            for setting in settings where setting.parameter == .maxConcurrentStreams { peerStreamLimit = setting.value }
        default:
            break
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // A stream the server reset, or one closed without a whole answer.
        if let closed = event as? StreamClosedEvent, let exchange = exchanges.removeValue(forKey: closed.streamID) {
            let reason = closed.reason.map { "\($0)" } ?? "no answer"
            let code: TransportErrorCode = closed.reason == .refusedStream ? .connectionDropped : .protocolError
            exchange.request.finish(.failure(TransportError(code, "The FCM endpoint ended the request's stream (\(reason)).", context: [:])))
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A stream's own protocol error fails that stream; anything else ends the connection.
        if let streamError = error as? NIOHTTP2Errors.StreamError {
            if let exchange = exchanges.removeValue(forKey: streamError.streamID) {
                exchange.request.finish(.failure(TransportError(
                    .protocolError, "The FCM endpoint's answer broke HTTP/2 (\(type(of: streamError.baseError))).", context: [:])))
                closeIfDone()
            }
            return
        }
        // A held-back stream that could not open after GOAWAY is that stream's failure (its
        // write promise, `notSent`), not the connection's: the streams the server took still
        // finish here.
        if error is NIOHTTP2Errors.CreatedStreamAfterGoaway { return }
        retire(FCMTransport.transportError(error, context: [:]))
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        retire(TransportError(.connectionDropped, "The HTTP/2 connection to the FCM endpoint closed under the request.", context: [:]))
        context.fireChannelInactive()
    }

    // MARK: Answers

    private func received(_ headers: HPACKHeaders, endStream: Bool, on streamID: HTTP2StreamID) {
        guard var exchange = exchanges[streamID] else { return }
        if exchange.status == nil {
            guard let status = headers.first(name: ":status").flatMap({ Int($0) }) else {
                fail(streamID, TransportError(.protocolError, "The FCM endpoint's answer has no :status.", context: [:]))
                return
            }
            // 1xx heads are informational; the final head follows.
            guard status >= 200 else { return }
            exchange.status = status
            for (name, value, _) in headers where !name.hasPrefix(":") { exchange.headers.append(HTTPHeader(name, value)) }
        }
        exchanges[streamID] = exchange
        if endStream { complete(streamID) }
    }

    private func received(_ bytes: ByteBuffer, endStream: Bool, on streamID: HTTP2StreamID) {
        guard var exchange = exchanges[streamID] else { return }
        let size = (exchange.body?.readableBytes ?? 0) + bytes.readableBytes
        guard size <= exchange.request.maxResponseBytes else {
            exchanges[streamID] = nil
            exchange.request.finish(.failure(TransportError(.responseTooLarge, "The FCM endpoint's answer is too large.",
                                                            context: ["limit": String(exchange.request.maxResponseBytes)])))
            context?.writeAndFlush(wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .rstStream(.cancel))), promise: nil)
            return
        }
        if exchange.body == nil {
            exchange.body = bytes
        } else {
            var copy = bytes
            exchange.body?.writeBuffer(&copy)
        }
        exchanges[streamID] = exchange
        if endStream { complete(streamID) }
    }

    private func complete(_ streamID: HTTP2StreamID) {
        guard let exchange = exchanges.removeValue(forKey: streamID) else { return }
        defer { closeIfDone() }
        guard let status = exchange.status else {
            exchange.request.finish(.failure(TransportError(.protocolError, "The FCM endpoint ended the stream before its answer's head.",
                                                            context: [:])))
            return
        }
        let body = exchange.body.map { Array(buffer: $0) } ?? []
        exchange.request.finish(.success(HTTPResponse(status: status, headers: exchange.headers, body: body, version: .http2)))
    }

    private func fail(_ streamID: HTTP2StreamID, _ error: TransportError) {
        exchanges.removeValue(forKey: streamID)?.request.finish(.failure(error))
        context?.writeAndFlush(wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .rstStream(.protocolError))), promise: nil)
    }

    /// Returns received bytes to the connection window once half of it is used, in one
    /// WINDOW_UPDATE (the stream windows are larger than any answer taken: see `HTTP2Client`).
    private func giveBack(_ bytes: Int, context: ChannelHandlerContext) {
        unacknowledged += bytes
        guard unacknowledged >= Self.connectionWindow / 2 else { return }
        let increment = unacknowledged
        unacknowledged = 0
        context.writeAndFlush(wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: increment))),
                              promise: nil)
    }

    // MARK: The connection's end

    /// A connection that takes no more streams closes once its last answer is in (one retired
    /// by GOAWAY is closed by the server too; one out of stream IDs only by this).
    private func closeIfDone() {
        if !accepting, exchanges.isEmpty { context?.close(promise: nil) }
    }

    private func stopAccepting() {
        guard accepting else { return }
        accepting = false
        let retire = onRetire
        onRetire = nil
        retire?()
    }

    private func retireIfExhausted() {
        if nextStreamID > Self.lastStreamID { stopAccepting() }
    }

    /// Fails every open request with `error` and takes no more.
    private func retire(_ error: TransportError) {
        stopAccepting()
        let open = exchanges
        exchanges = [:]
        for exchange in open.values { exchange.request.finish(.failure(error)) }
    }
}
