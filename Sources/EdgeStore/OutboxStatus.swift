/// What `edge sync status` prints.
public struct OutboxStatus: Sendable, Hashable {
    /// Streams with unsent entries, by name.
    public let streams: [OutboxStreamStatus]
    /// Seconds since the oldest unsent entry (any stream) was created; nil when empty.
    public let oldestEntryAge: Double?
    public let deadLetterCount: Int
    public let conflictCount: Int
    /// Unix seconds of the last successful push / pull; nil if never.
    public let lastPush: Double?
    public let lastPull: Double?
    public let usage: OutboxUsage
    /// Paused or not and why, 426 (SYN-7).
    public let sender: SenderState
    /// Credentials whose entries wait (revoked token, study start pending).
    public let holds: [CredentialHold]

    public var depth: Int { streams.reduce(0) { $0 + $1.depth } }
}
