/// One stream's backlog, as `edge sync status` prints it.
public struct OutboxStreamStatus: Sendable, Hashable {
    public let stream: String
    public let depth: Int
    /// Seconds since the oldest entry was created.
    public let oldestEntryAge: Double
}
