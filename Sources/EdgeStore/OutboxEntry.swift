import GRDB

/// One unsent message in the outbox. `idempotencyKey` and `sequence` are assigned once at
/// enqueue and survive retries, dead-lettering and re-queueing (SYN-2).
@dynamicMemberLookup
public struct OutboxEntry: Sendable, Hashable {
    public let id: Int64
    public let message: OutboxMessage
    /// Unix seconds; the entry is not leased before this.
    public let nextAttemptAt: Double
    public let leaseOwner: String?
    /// Unix seconds.
    public let leaseExpiresAt: Double?
    public let lastError: String?

    public subscript<T>(dynamicMember field: KeyPath<OutboxMessage, T>) -> T { message[keyPath: field] }

    init(row: Row) {
        id = row["id"]
        message = OutboxMessage(row: row)
        nextAttemptAt = row["next_attempt_at"]
        leaseOwner = row["lease_owner"]
        leaseExpiresAt = row["lease_expires_at"]
        lastError = row["last_error"]
    }
}
