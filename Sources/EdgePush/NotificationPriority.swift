/// A notification's priority (PSH-1); Urgent bypasses quiet hours (PSH-4).
public enum NotificationPriority: String, Sendable, Hashable, CaseIterable {
    case urgent = "URGENT"
    case high = "HIGH"
    case normal = "NORMAL"
}
