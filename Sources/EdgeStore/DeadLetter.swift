import GRDB

/// An entry the server refused for good (SYN-7 "other 4xx"): kept, shown by `edge sync status`,
/// and re-queueable by hand with its original key and sequence.
@dynamicMemberLookup
public struct DeadLetter: Sendable, Hashable {
    public let id: Int64
    public let message: OutboxMessage
    public let lastError: String?
    /// The server's reason, as given to `Outbox.deadLetter`.
    public let reason: String
    /// Unix seconds.
    public let deadAt: Double

    public subscript<T>(dynamicMember field: KeyPath<OutboxMessage, T>) -> T { message[keyPath: field] }

    init(row: Row) {
        id = row["id"]
        message = OutboxMessage(row: row)
        lastError = row["last_error"]
        reason = row["reason"]
        deadAt = row["dead_at"]
    }
}
