import EdgeContract
import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// One per connection, between Hummingbird's HTTP/1 codec and its request handling (added with
/// `HTTP1Channel.Configuration(additionalChannelHandlers:)`), so it sees each request's parts
/// before the application and each response's parts after it. It
/// - marks every response `X-Edge-Standin: true`;
/// - records every request outside `/_standin/` in the RequestJournal (with its fault and status);
/// - carries out the fault the FaultInjector picks for a request on a contract path (`/api/`):
///   refuse, delay, stall and the two drops and `status` on the request side, drop, double and
///   trickle on the response side. Connection-level faults cannot be done in a responder: it can
///   neither close the connection without answering, nor answer twice, nor pace its bytes.
///
/// Runs on its channel's event loop only, so its own state needs no lock.
final class FaultChannelHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    static let markerName = "X-Edge-Standin"

    /// What happens to the rest of the request being read.
    private enum Inbound {
        case pass
        /// Read and discard until `.end`, then act (dropBeforeApply: close; status: answer).
        case swallow(StandinFault)
        /// Held until the delay ends, then passed on in order.
        case delaying([HTTPRequestPart])
        /// The connection is closed: ignore everything.
        case closed
        /// `stall`: the request is read and never answered; everything after it is ignored.
        case stalled
    }

    /// A request handed to the application, waiting for its response (FIFO: HTTP/1 answers in order).
    private struct Pending {
        var recordID: Int?
        var fault: FaultKind?
        var copies: [HTTPResponsePart] = []
        /// `trickle`: the body held back, and the pace it goes out at.
        var held: [UInt8] = []
        var interval: Int64 = 1000
    }

    private let injector: FaultInjector
    private let journal: RequestJournal
    private var inbound = Inbound.pass
    private var currentRecordID: Int?
    private var currentFault: StandinFault?
    private var pending: [Pending] = []
    /// The request whose answer is being stalled or trickled, to mark abandoned if the client
    /// closes first.
    private var unanswered: Int?
    /// `trickle`: bytes are still going out. The application closes the connection once it has
    /// handed over its answer (`Connection: close`); that close waits for the last byte.
    private var trickling = false
    private var heldClose: (mode: CloseMode, promise: EventLoopPromise<Void>?)?

    init(injector: FaultInjector, journal: RequestJournal) {
        self.injector = injector
        self.journal = journal
    }

    // MARK: Requests

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        switch part {
        case .head(let head):
            beginRequest(context: context, head: head)
        case .body(let buffer):
            if let id = currentRecordID {
                journal.update(id) { $0.bodySize += buffer.readableBytes }
            }
            continueRequest(context: context, part: part)
        case .end:
            continueRequest(context: context, part: part)
        }
    }

    private func beginRequest(context: ChannelHandlerContext, head: HTTPRequest) {
        if case .closed = inbound { return }
        if case .stalled = inbound { return }
        let target = head.path ?? "/"
        let path = target.split(separator: "?", maxSplits: 1).first.map(String.init) ?? target
        let query = target.firstIndex(of: "?").map { String(target[target.index(after: $0)...]) }
        currentRecordID = nil
        currentFault = nil
        if !path.hasPrefix(StandinControlPath.prefix) {
            currentRecordID = journal.begin(
                method: head.method.rawValue, path: path, query: query,
                headers: head.headerFields.map { (name: $0.name.rawName, value: $0.value) })
        }
        // The contract's paths and the FCM stand-in's (slow FCM answers are `delay` faults).
        if path.hasPrefix("/api/") || path.hasPrefix(FCMStandin.messagesPrefix) || path == FCMStandin.tokenPath {
            currentFault = injector.decide(path: path)
        }
        if let id = currentRecordID, let kind = currentFault?.kind {
            journal.update(id) { $0.fault = kind }
        }
        guard let fault = currentFault else {
            pass(context: context, part: .head(head))
            return
        }
        switch fault.kind {
        case .refuse:
            inbound = .closed
            context.close(promise: nil)
        case .dropBeforeApply, .status:
            inbound = .swallow(fault)
        case .delay:
            inbound = .delaying([.head(head)])
            let milliseconds = Int64(max(fault.parameters.delayMS ?? 100, 0))
            context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(milliseconds)) { [self] in
                endDelay(context: context)
            }
        case .stall:
            inbound = .stalled
            unanswered = currentRecordID
        case .drop, .double, .trickle:
            pass(context: context, part: .head(head))
        }
    }

    private func continueRequest(context: ChannelHandlerContext, part: HTTPRequestPart) {
        switch inbound {
        case .closed, .stalled:
            return
        case .delaying(var held):
            held.append(part)
            inbound = .delaying(held)
        case .swallow(let fault):
            guard case .end = part else { return }
            inbound = .pass
            if fault.kind == .status {
                answer(context: context, reply: .fault(fault.parameters))
            } else {
                inbound = .closed
                context.close(promise: nil)
            }
        case .pass:
            pass(context: context, part: part)
        }
    }

    /// Hands a part to the application; a head opens a Pending entry for its response.
    private func pass(context: ChannelHandlerContext, part: HTTPRequestPart) {
        if case .head = part {
            pending.append(Pending(recordID: currentRecordID, fault: currentFault?.kind,
                                   interval: Int64(max(currentFault?.parameters.intervalMS ?? 1000, 1))))
        }
        context.fireChannelRead(wrapInboundOut(part))
    }

    private func endDelay(context: ChannelHandlerContext) {
        // A client that gave up during the delay closed the connection: nothing is passed on, so
        // the request is never applied.
        guard case .delaying(let held) = inbound, context.channel.isActive else { return }
        inbound = .pass
        for part in held {
            pass(context: context, part: part)
        }
        context.fireChannelReadComplete()
    }

    /// One byte now, the rest after `interval` ms; the end and a close after the last.
    private func trickle(context: ChannelHandlerContext, bytes: ArraySlice<UInt8>, interval: Int64) {
        guard context.channel.isActive, unanswered != nil else { return }
        guard let first = bytes.first else {
            unanswered = nil
            trickling = false
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            context.close(promise: heldClose?.promise)
            heldClose = nil
            return
        }
        context.writeAndFlush(wrapOutboundOut(.body(ByteBuffer(bytes: [first]))), promise: nil)
        context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(interval)) { [self] in
            trickle(context: context, bytes: bytes.dropFirst(), interval: interval)
        }
    }

    /// Writes a whole answer of the handler's own (a `status` fault).
    private func answer(context: ChannelHandlerContext, reply: StandinReply) {
        var fields = StandinResponder.fields(reply.headers)
        fields[.contentLength] = String(reply.body.count)
        if let marker = HTTPField.Name(Self.markerName) { fields[marker] = "true" }
        fields[.connection] = "close"
        if let id = currentRecordID {
            journal.update(id) { $0.status = reply.status }
        }
        context.write(wrapOutboundOut(.head(HTTPResponse(status: .init(code: reply.status), headerFields: fields))), promise: nil)
        context.write(wrapOutboundOut(.body(ByteBuffer(bytes: reply.body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        // Decision: then close. The application never saw this request, so the connection's
        // keep-alive bookkeeping (Connection: close, HTTP/1.0) is not run for it; closing is always
        // correct, and a client must cope with a server closing after an error anyway.
        inbound = .closed
        context.close(promise: nil)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // Hummingbird allows half-closed connections, so a client that gives up during a delay
        // shows as "input closed", not as an inactive channel: the held request is dropped.
        if case .delaying = inbound, let channelEvent = event as? ChannelEvent, channelEvent == .inputClosed {
            inbound = .closed
            context.close(promise: nil)
            return
        }
        // A client that gives up on a stalled or trickled answer closes its side: so does the
        // stand-in, and the request is marked abandoned.
        if unanswered != nil, let channelEvent = event as? ChannelEvent, channelEvent == .inputClosed {
            markAbandoned()
            inbound = .closed
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        markAbandoned()
        trickling = false
        heldClose?.promise?.succeed(())
        heldClose = nil
        inbound = .closed
        context.fireChannelInactive()
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if trickling && context.channel.isActive {
            heldClose = (mode, promise)
            return
        }
        context.close(mode: mode, promise: promise)
    }

    private func markAbandoned() {
        guard let id = unanswered else { return }
        unanswered = nil
        journal.update(id) { $0.abandoned = true }
    }

    // MARK: Responses

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        var part = unwrapOutboundIn(data)
        if case .head(var head) = part {
            if let marker = HTTPField.Name(Self.markerName) { head.headerFields[marker] = "true" }
            part = .head(head)
            if let current = pending.first, current.fault != .drop, let id = current.recordID {
                journal.update(id) { $0.status = head.status.code }
            }
        }
        guard !pending.isEmpty else {
            context.write(wrapOutboundOut(part), promise: promise)
            return
        }
        switch pending[0].fault {
        case .drop?:
            // Applied, but the client never hears of it.
            promise?.succeed(())
            if case .end = part {
                pending.removeFirst()
                inbound = .closed
                context.close(promise: nil)
            }
        case .trickle?:
            // The head at once (its Content-Length announces the whole body), the body a byte
            // at a time, then the end and a close.
            switch part {
            case .head:
                unanswered = pending[0].recordID
                context.writeAndFlush(wrapOutboundOut(part), promise: promise)
            case .body(let buffer):
                pending[0].held.append(contentsOf: buffer.readableBytesView)
                promise?.succeed(())
            case .end:
                promise?.succeed(())
                let done = pending.removeFirst()
                inbound = .closed
                trickling = true
                trickle(context: context, bytes: done.held[...], interval: done.interval)
            }
        case .double?:
            pending[0].copies.append(part)
            context.write(wrapOutboundOut(part), promise: promise)
            if case .end = part {
                let copies = pending.removeFirst().copies
                for copy in copies {
                    context.write(wrapOutboundOut(copy), promise: nil)
                }
            }
        default:
            context.write(wrapOutboundOut(part), promise: promise)
            if case .end = part {
                pending.removeFirst()
            }
        }
    }
}
