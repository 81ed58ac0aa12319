/// What `OutboxSalvage` recovered from a damaged database file, and what it could not.
public struct OutboxSalvageReport: Sendable, Equatable {
    /// An entry the file names (in an index, or in a row that fails its checks) that could not be
    /// read whole; what is known of it, for the operator to chase with the backend.
    public struct Lost: Sendable, Equatable {
        public var table: String
        public var id: Int64
        public var idempotencyKey: String?
        public var stream: String?
        public var sequence: Int64?
    }

    /// Outbox entries written to the station's outbox, under their original idempotency keys.
    public var requeued = 0
    /// Dead letters written back as dead letters (the backend refused them; `edge sync requeue`
    /// sends one again).
    public var deadLetters = 0
    /// Entries the station already has (by idempotency key, in its outbox, dead letters or
    /// conflicts): a salvage run twice, or entries an import brought.
    public var alreadyPresent = 0
    /// Entries that kept their key but whose sequence the station had given to another entry
    /// (possible only when the damaged file's counter could not be read): they got new ones.
    public var renumbered = 0
    /// Entries that could not be read whole.
    public var lost: [Lost] = []
    /// Tables or scans that broke off part way: there may be entries nobody can name.
    public var brokenTables: [String] = []

    public var unreadable: Int { lost.count }

    /// Whether everything the file lists was recovered.
    public var complete: Bool { lost.isEmpty && brokenTables.isEmpty }
}
