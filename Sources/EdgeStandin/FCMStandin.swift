import EdgeContract
import Synchronization

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
    }

    let state = Mutex(State())

    init() {}

    /// Adds a fault after those in force; the first matching one with times left is used.
    public func add(_ fault: FCMFault) {
        state.withLock { $0.faults.append(fault) }
    }

    public func clearFaults() {
        state.withLock { $0.faults = [] }
    }

    /// Every message received, in order.
    public var received: [FCMReceivedMessage] { state.withLock { $0.received } }

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
