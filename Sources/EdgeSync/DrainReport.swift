/// What one drain of the outbox did, for `edge sync run` and the agent's log.
public struct DrainReport: Sendable, Hashable {
    /// Why the drain ended.
    public enum Outcome: Sendable, Hashable {
        /// Nothing is due: the outbox is empty or every entry waits for a retry time or a hold.
        case idle
        /// Sending is paused after consecutive failures (SYN-7); the reason is the last failure.
        case paused(reason: String)
        /// The backend answered 426.
        case upgradeRequired(message: String)
        /// The local database failed.
        case storeFailed(message: String)
        /// The task was cancelled (shutdown).
        case cancelled
    }

    public var sent = 0
    /// Of `sent`, how many the server reported as already applied.
    public var duplicates = 0
    public var retried = 0
    public var conflicts = 0
    public var deadLettered = 0
    /// Entries whose credential was put on hold.
    public var held = 0
    public var outcome: Outcome = .idle

    public init() {}
}
