/// A notification record's state (PSH-11).
///
/// QUEUED: to be sent now (or, after a digest release, as part of that digest). HELD: waiting for
/// the end of the user's quiet hours. FAILED carries a reason: suppressed by preferences, TTL
/// expired while held, or a send failure.
public enum NotificationStatus: String, Sendable, Hashable, CaseIterable {
    case queued = "QUEUED"
    case held = "HELD"
    case sent = "SENT"
    case delivered = "DELIVERED"
    case opened = "OPENED"
    case failed = "FAILED"

    /// States a record leaves only by the retention purge.
    public var isFinal: Bool {
        switch self {
        case .queued, .held: return false
        case .sent, .delivered, .opened, .failed: return true
        }
    }
}
