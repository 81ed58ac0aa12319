import FoundationEssentials
import GRDB

/// What an entry is, fixed at enqueue (SYN-2) and carried unchanged into the dead-letter and
/// conflict tables: the three records share it instead of repeating its fields.
public struct OutboxMessage: Sendable, Hashable {
    public let stream: String
    public let kind: String
    /// JSON bytes, validated at enqueue.
    public let payload: [UInt8]
    /// Lower-case UUID v4, sent as `Idempotency-Key`; survives retries and re-queueing.
    public let idempotencyKey: String
    /// Per-device, strictly increasing, never reused.
    public let sequence: Int64
    /// ISO 8601 local time with UTC offset.
    public let createdAt: String
    /// Send attempts counted so far.
    public let attempts: Int
    /// The vault name of the token that authenticates this entry; nil for the station's own.
    public let credential: String?

    init(row: Row) {
        stream = row["stream"]
        kind = row["kind"]
        payload = [UInt8](row["payload"] as Data)
        idempotencyKey = row["idempotency_key"]
        sequence = row["sequence"]
        createdAt = row["created_at"]
        attempts = row["attempts"]
        credential = row["credential"]
    }
}
