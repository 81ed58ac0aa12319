/// The relay's answer to a new notification: its record and what was decided.
public struct AcceptedNotification: Sendable, Hashable {
    public let record: NotificationRecord
    public let decision: PushDecision
    /// The user's badge after counting it (PSH-5), to send with the push.
    public let badge: Int
}
