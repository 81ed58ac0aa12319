/// What the stand-in did with one Idempotency-Key (sync push, GRN confirmation): how many times
/// it changed state for it (must never exceed 1, SYN-12) and how many times it replayed the
/// first answer.
public struct AppliedRecord: Sendable, Hashable, Codable {
    public var idempotencyKey: String
    public var method: String
    public var path: String
    /// Times the request changed server state: 1 once applied, 0 when its first answer was a
    /// refusal (404, 409, 422) that is replayed like any other answer.
    public var applications: Int
    /// Times a repeat of the key got the first answer again.
    public var replays: Int
    /// The first answer's status.
    public var status: Int
    /// Server time of the first answer.
    public var firstSeenAt: String
    /// The sync push entry as applied, for crash tests comparing server effects with what was
    /// enqueued; nil for other paths.
    public var stream: String?
    public var sequence: Int64?

    public init(
        idempotencyKey: String, method: String, path: String, applications: Int, replays: Int, status: Int,
        firstSeenAt: String, stream: String? = nil, sequence: Int64? = nil
    ) {
        self.idempotencyKey = idempotencyKey
        self.method = method
        self.path = path
        self.applications = applications
        self.replays = replays
        self.status = status
        self.firstSeenAt = firstSeenAt
        self.stream = stream
        self.sequence = sequence
    }

    enum CodingKeys: String, CodingKey {
        case idempotencyKey = "idempotency_key"
        case method, path, applications, replays, status
        case firstSeenAt = "first_seen_at"
        case stream, sequence
    }
}
