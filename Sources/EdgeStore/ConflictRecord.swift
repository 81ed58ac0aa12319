import FoundationEssentials
import GRDB

/// A local version the server rejected with 409 (the server wins, SYN-7), kept 7 days so the
/// operator can be told what changed.
public struct ConflictRecord: Sendable, Hashable {
    public let id: Int64
    public let stream: String
    public let kind: String
    /// The local version that lost.
    public let payload: [UInt8]
    public let idempotencyKey: String
    public let sequence: Int64
    public let createdAt: String
    public let attempts: Int
    /// The server's version, as it returned it.
    public let serverVersion: [UInt8]
    /// Unix seconds.
    public let recordedAt: Double

    init(row: Row) {
        id = row["id"]
        stream = row["stream"]
        kind = row["kind"]
        payload = [UInt8](row["payload"] as Data)
        idempotencyKey = row["idempotency_key"]
        sequence = row["sequence"]
        createdAt = row["created_at"]
        attempts = row["attempts"]
        serverVersion = [UInt8](row["server_version"] as Data)
        recordedAt = row["recorded_at"]
    }
}
