/// The relay's state at a glance, for `edge push status` and metrics (PSH-11).
public struct PushOverview: Sendable, Hashable {
    /// Notification records per status, every status present.
    public let counts: [NotificationStatus: Int]
    /// The earliest end of quiet hours a held notification waits for (Unix seconds).
    public let nextRelease: Int64?
    /// Digests made and not sent yet, and when the first of them is due.
    public let queuedDigests: Int
    public let nextDigestAt: Int64?
    public let users: Int
    public let activeDevices: Int
    public let retiredDevices: Int
    /// The sum of every user's badge.
    public let badgeTotal: Int
}
