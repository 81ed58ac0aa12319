/// The answer to a push: the entry is applied (first time) or was already applied under the
/// same key (the server replays its first answer with `status: "duplicate"`); either way the
/// agent is done with it (SYN-7).
public struct SyncPushResponse: Sendable, Hashable, Codable {
    public enum Status: String, Sendable, Hashable, Codable {
        case applied
        case duplicate
    }

    public var status: Status
    public var idempotencyKey: String
    /// The server's own ordering of applied entries.
    public var serverSequence: Int64
    /// Server time of the first application, with UTC offset.
    public var appliedAt: String

    public init(status: Status, idempotencyKey: String, serverSequence: Int64, appliedAt: String) {
        self.status = status
        self.idempotencyKey = idempotencyKey
        self.serverSequence = serverSequence
        self.appliedAt = appliedAt
    }

    enum CodingKeys: String, CodingKey {
        case status
        case idempotencyKey = "idempotency_key"
        case serverSequence = "server_sequence"
        case appliedAt = "applied_at"
    }
}
