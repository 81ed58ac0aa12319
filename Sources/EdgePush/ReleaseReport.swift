/// What one release of held notifications did (PSH-4).
public struct ReleaseReport: Sendable, Hashable {
    /// The digests made, ordered by user and group.
    public let digests: [PushDigest]
    /// Held notifications released into those digests.
    public let released: Int
    /// Held notifications dropped because their TTL passed while they were held.
    public let expired: Int
}
