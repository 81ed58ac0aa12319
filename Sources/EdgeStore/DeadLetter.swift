import FoundationEssentials
import GRDB

/// An entry the server refused for good (SYN-7 "other 4xx"): kept, shown by `edge sync status`,
/// and re-queueable by hand with its original key and sequence.
public struct DeadLetter: Sendable, Hashable {
    public let id: Int64
    public let stream: String
    public let kind: String
    public let payload: [UInt8]
    public let idempotencyKey: String
    public let sequence: Int64
    public let createdAt: String
    public let attempts: Int
    public let lastError: String?
    /// The server's reason, as given to `Outbox.deadLetter`.
    public let reason: String
    /// Unix seconds.
    public let deadAt: Double

    init(row: Row) {
        id = row["id"]
        stream = row["stream"]
        kind = row["kind"]
        payload = [UInt8](row["payload"] as Data)
        idempotencyKey = row["idempotency_key"]
        sequence = row["sequence"]
        createdAt = row["created_at"]
        attempts = row["attempts"]
        lastError = row["last_error"]
        reason = row["reason"]
        deadAt = row["dead_at"]
    }
}
