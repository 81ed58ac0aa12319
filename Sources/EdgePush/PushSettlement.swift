/// How a send ended for one target, to be recorded (PSH-11): SENT, or FAILED with the reason.
public struct PushSettlement: Sendable, Hashable {
    public let target: PushTarget
    public let status: NotificationStatus
    public let reason: String?

    public init(_ target: PushTarget, _ status: NotificationStatus, reason: String? = nil) {
        self.target = target
        self.status = status
        self.reason = reason
    }
}
