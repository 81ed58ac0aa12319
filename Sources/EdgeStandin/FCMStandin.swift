import EdgeContract
import EdgeCore

/// The FCM stand-in's state: access tokens it issued, faults in force, messages received.
public final class FCMStandin: Sendable {
    static let tokenPath = "/token"
    static let messagesPrefix = "/v1/projects/"
    static let messagesSuffix = "/messages:send"

    struct State {
        var tokens: [String: Double] = [:]
        var faults: [FCMFault] = []
        var received: [FCMReceivedMessage] = []
        var tokenRequests = 0
        var accepted = 0
        /// Requests being answered now, and the most at once, per connection.
        var open: [Int: Int] = [:]
        var mostOpen: [Int: Int] = [:]
        /// Connections numbered 1, 2, ... in the order they were first seen.
        var connections: [ObjectIdentifier: Int] = [:]
    }

    let state = Locked(State())

    init() {}

    /// Adds a fault after those in force; the first matching one with times left is used.
    public func add(_ fault: FCMFault) {
        state.withLock { $0.faults.append(fault) }
    }

    /// The faults in force, in order.
    public var faults: [FCMFault] { state.withLock { $0.faults } }

    public func clearFaults() {
        state.withLock { $0.faults = [] }
    }

    /// Every message received, in order.
    public var received: [FCMReceivedMessage] { state.withLock { $0.received } }

    /// The most requests answered at once on one connection (HTTP/2: concurrent streams), per
    /// connection seen.
    public var mostConcurrentStreams: [Int: Int] { state.withLock { $0.mostOpen } }

    /// A small stable number for a connection, for records and tests.
    func number(of connection: ObjectIdentifier) -> Int {
        state.withLock { state in
            if let known = state.connections[connection] { return known }
            let next = state.connections.count + 1
            state.connections[connection] = next
            return next
        }
    }

    func streamOpened(on connection: Int) {
        state.withLock { state in
            let now = state.open[connection, default: 0] + 1
            state.open[connection] = now
            state.mostOpen[connection] = max(state.mostOpen[connection] ?? 0, now)
        }
    }

    func streamClosed(on connection: Int) {
        state.withLock { state in
            let now = (state.open[connection] ?? 1) - 1
            state.open[connection] = now > 0 ? now : nil
        }
    }

    /// Forgets the messages received and the stream counts (control API DELETE).
    public func clearReceived() {
        state.withLock { state in
            state.received = []
            state.mostOpen = [:]
        }
    }

    /// Requests to `/token`, answered or refused.
    public var tokenRequests: Int { state.withLock { $0.tokenRequests } }

    /// Forgets every issued token, as if Google revoked them: the next send gets 401.
    public func revokeTokens() {
        state.withLock { $0.tokens = [:] }
    }

    /// The fault for a message to `token`, counted against its `times`.
    func takeFault(token: String?, in state: inout State) -> FCMFault? {
        guard let index = state.faults.firstIndex(where: { fault in
            (fault.times ?? 1) > 0 && (fault.token == nil || fault.token == token)
        }) else { return nil }
        let fault = state.faults[index]
        if let times = fault.times {
            if times <= 1 { state.faults.remove(at: index) } else { state.faults[index].times = times - 1 }
        }
        return fault
    }
}

extension FCMStandin {
    /// The field FCM would refuse `body` for (INVALID_ARGUMENT), nil when it would accept it;
    /// the same check `messages:send` runs, for tests of the rules themselves.
    public static func violation(body: [UInt8]) -> String? {
        StandinBackend.violation(document: try? ContractCoding.decode(JSONValue.self, from: body), bytes: body.count)?.field
    }
}
