/// What the relay does with a notification (PSH-3, PSH-4).
public enum PushDecision: Sendable, Hashable {
    case sendNow
    /// Held until the end of quiet hours (Unix seconds).
    case hold(until: Int64)
    case suppressed(SuppressionReason)

    /// The rules, in order: push off, type off, already expired → suppressed; an override type or
    /// Urgent → now; inside quiet hours → held to the window's end; else now.
    public static func decide(_ notification: PushNotification, preferences: PushPreferences, now: Int64,
                              quiet: QuietHoursState) -> PushDecision {
        guard preferences.pushEnabled else { return .suppressed(.pushDisabled) }
        guard preferences.isEnabled(notification.type) else { return .suppressed(.typeDisabled) }
        guard notification.expiresAt > now else { return .suppressed(.expired) }
        if notification.priority == .urgent || preferences.overrideTypes.contains(notification.type) { return .sendNow }
        switch quiet {
        case .open: return .sendNow
        case .quiet(let until): return .hold(until: until)
        }
    }
}
