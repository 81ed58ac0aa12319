import EdgeCore
import EdgeStore
import GRDB

/// How the outbox sender behaves (SYN-7, SYN-8). The defaults are the specification's.
public struct SenderConfiguration: Sendable {
    public var baseURL: String
    public var identity: SyncIdentity
    public var backoff: BackoffPolicy = .standard
    /// Retryable failures in a row before sending pauses.
    public var pauseAfterFailures = 5
    /// How long a pause lasts when nothing else ends it.
    public var pauseSeconds: Double = 300
    /// Longer than the transport's total timeout, so a live sender never loses a lease mid-request.
    public var leaseSeconds: Double = 120
    /// Streams sent concurrently (each stream strictly one entry at a time).
    public var concurrency = 8
    /// How often the running sender looks for new or due entries (other processes enqueue too).
    public var pollSeconds: Double = 1
    /// Requests per minute (SYN-8).
    public var requestsPerMinute = 100
    /// Wait before trying again when there is no token for a credential yet.
    public var missingTokenRetrySeconds: Double = 60
    /// The capabilities' declared kinds (`OutboxKind`): which go to their own endpoint.
    public var kinds: [OutboxKind] = []
    /// Called inside the transaction that completes a delivered entry, so what it records (RCV-7:
    /// a confirmed GRN raises a push notification) is durable exactly when the entry is done.
    /// Throwing rolls the completion back and the entry is sent again (the server's idempotency
    /// makes that harmless), so it should throw only when the database does.
    public var onDelivered: (@Sendable (Database, OutboxEntry) throws -> Void)?

    public init(baseURL: String, identity: SyncIdentity) {
        self.baseURL = baseURL
        self.identity = identity
    }
}
