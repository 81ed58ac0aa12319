import FoundationEssentials

/// One step of an enrollment's history (ENR-12): from, to, when (Unix seconds) and why.
public struct EnrollmentTransition: Sendable, Hashable, Codable {
    public let from: EnrollmentState
    public let to: EnrollmentState
    public let at: Double
    /// Why, in words for the coordinator: "code validated", "revoked: HTTP 401 on sync push", ...
    public let cause: String

    public init(from: EnrollmentState, to: EnrollmentState, at: Double, cause: String) {
        self.from = from
        self.to = to
        self.at = at
        self.cause = cause
    }
}

/// The state machine (ENR-11) as a pure value: the current state, the full history, and the one
/// way to change them, which refuses every transition ENR-11 does not list with a typed error.
/// No I/O: the store persists what `move` produced, in the transaction that needs it.
public struct EnrollmentLifecycle: Sendable, Hashable {
    public private(set) var state: EnrollmentState
    public private(set) var history: [EnrollmentTransition]
    /// Set while a re-enrollment is under way: LINKING_PENDING reached from NOT_PARTICIPATING,
    /// the only case where LINKING_PENDING may go straight to ENROLLED.
    public var isReenrolling: Bool {
        state == .linkingPending && history.last.map { $0.from == .notParticipating } == true
    }

    public init(state: EnrollmentState = .personalUse, history: [EnrollmentTransition] = []) {
        self.state = state
        self.history = history
    }

    /// Moves to `next`, appending the transition; refuses what ENR-11 does not allow.
    @discardableResult
    public mutating func move(to next: EnrollmentState, at time: Double, cause: String) throws(EnrollmentError) -> EnrollmentTransition {
        guard state.canMove(to: next, reenrolling: isReenrolling) else {
            throw EnrollmentError(.invalidTransition, "An enrollment in \(state.rawValue) cannot move to \(next.rawValue).",
                                  context: ["from": state.rawValue, "to": next.rawValue])
        }
        let transition = EnrollmentTransition(from: state, to: next, at: time, cause: cause)
        state = next
        history.append(transition)
        return transition
    }
}
