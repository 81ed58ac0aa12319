/// The storage bound of SYN-4, over everything not yet accepted by the server (outbox entries
/// and dead letters, which are kept until re-queued).
public struct OutboxLimits: Sendable, Hashable {
    public let maxEntries: Int
    /// Sum of payload sizes.
    public let maxBytes: Int

    public init(maxEntries: Int, maxBytes: Int) {
        self.maxEntries = max(1, maxEntries)
        self.maxBytes = max(1, maxBytes)
    }

    /// Days of scanning offline on a busy station, well below the disk of the smallest target.
    public static let standard = OutboxLimits(maxEntries: 100_000, maxBytes: 512 * 1024 * 1024)
}
