/// `GET /api/sync/pull?cursor=...&limit=...`: changes after the cursor. The cursor is opaque
/// (SYN-9): the agent stores `nextCursor` with the applied changes in one transaction and sends
/// it back unchanged; it never derives one from its own clock.
public struct SyncPullResponse: Sendable, Hashable, Codable {
    public var changes: [SyncChange]
    public var nextCursor: String
    public var hasMore: Bool

    public init(changes: [SyncChange], nextCursor: String, hasMore: Bool) {
        self.changes = changes
        self.nextCursor = nextCursor
        self.hasMore = hasMore
    }

    enum CodingKeys: String, CodingKey {
        case changes
        case nextCursor = "next_cursor"
        case hasMore = "has_more"
    }
}
