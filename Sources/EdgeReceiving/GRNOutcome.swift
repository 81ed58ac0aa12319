/// Where a confirmation stands after the station tried to send it.
public enum GRNOutcome: Sendable, Hashable {
    /// The backend applied it.
    case applied
    /// Still in the outbox: offline, retrying, or a running agent has not sent it yet. The
    /// outbox sends it later, exactly once.
    case queued(reason: String)
    /// The server's version won (RCV-3); nil report when the 409 carried no readable order.
    case conflict(ConflictReport?)
    /// Refused for good; a dead letter the operator can re-queue (`edge sync requeue`).
    case rejected(reason: String)

    /// "applied", "queued", "conflict", "rejected" (models/receive-confirmation.schema.json).
    public var name: String {
        switch self {
        case .applied: "applied"
        case .queued: "queued"
        case .conflict: "conflict"
        case .rejected: "rejected"
        }
    }
}
