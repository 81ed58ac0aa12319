/// One stream's unsent entries, for `edge sync status`.
public struct OutboxStreamStatus: Sendable, Hashable {
    public let stream: String
    public let depth: Int
    /// Seconds since its oldest entry was created.
    public let oldestEntryAge: Double
    /// Why the head entry's last attempt failed, if it did: what is stuck and why.
    public let headLastError: String?
    /// Unix seconds when the head is next tried.
    public let headNextAttemptAt: Double
    public let headAttempts: Int
}
