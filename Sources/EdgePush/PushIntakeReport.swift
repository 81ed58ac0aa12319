/// What the relay took from a page of pulled changes.
public struct PushIntakeReport: Sendable, Hashable {
    /// NOTIFICATION changes recorded (queued, held or suppressed by the user's preferences).
    public var notifications = 0
    /// INBOX_OPENED and APPROVAL_RESOLVED changes applied to badges.
    public var badgeEvents = 0
    /// PUSH_RECEIPT changes that moved a record to DELIVERED or OPENED (PSH-11), by status.
    public var receipts: [String: Int] = [:]
    /// Changes of a push kind whose payload was refused, as "change id: reason". The change itself
    /// stays in pulled_changes, so nothing is lost; the operator sees why it was not delivered.
    public var refused: [String] = []

    public init() {}
}
