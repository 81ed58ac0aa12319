/// Whether a user's quiet hours hold at an instant.
public enum QuietHoursState: Sendable, Hashable {
    case open
    /// Quiet until `until` (Unix seconds), the first instant outside the window.
    case quiet(until: Int64)
}
