import FoundationEssentials
import GRDB

/// A local version the server rejected with 409 (the server wins, SYN-7), kept 7 days so the
/// operator can be told what changed.
@dynamicMemberLookup
public struct ConflictRecord: Sendable, Hashable {
    public let id: Int64
    /// The local version that lost.
    public let message: OutboxMessage
    /// The server's version, as it returned it.
    public let serverVersion: [UInt8]
    /// Unix seconds.
    public let recordedAt: Double

    public subscript<T>(dynamicMember field: KeyPath<OutboxMessage, T>) -> T { message[keyPath: field] }

    init(row: Row) {
        id = row["id"]
        message = OutboxMessage(row: row)
        serverVersion = [UInt8](row["server_version"] as Data)
        recordedAt = row["recorded_at"]
    }
}
