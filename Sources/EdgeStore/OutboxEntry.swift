import FoundationEssentials
import GRDB

/// One unsent message in the outbox. `idempotencyKey` and `sequence` are assigned once at
/// enqueue and survive retries, dead-lettering and re-queueing (SYN-2).
public struct OutboxEntry: Sendable, Hashable {
    public let id: Int64
    public let stream: String
    public let kind: String
    /// JSON bytes, validated at enqueue.
    public let payload: [UInt8]
    /// Lower-case UUID v4, sent as `Idempotency-Key`.
    public let idempotencyKey: String
    /// Per-device, strictly increasing, never reused.
    public let sequence: Int64
    /// ISO 8601 local time with UTC offset.
    public let createdAt: String
    public let attempts: Int
    /// Unix seconds; the entry is not leased before this.
    public let nextAttemptAt: Double
    public let leaseOwner: String?
    /// Unix seconds.
    public let leaseExpiresAt: Double?
    public let lastError: String?

    init(row: Row) {
        id = row["id"]
        stream = row["stream"]
        kind = row["kind"]
        payload = [UInt8](row["payload"] as Data)
        idempotencyKey = row["idempotency_key"]
        sequence = row["sequence"]
        createdAt = row["created_at"]
        attempts = row["attempts"]
        nextAttemptAt = row["next_attempt_at"]
        leaseOwner = row["lease_owner"]
        leaseExpiresAt = row["lease_expires_at"]
        lastError = row["last_error"]
    }
}
