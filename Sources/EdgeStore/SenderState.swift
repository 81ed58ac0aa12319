import GRDB

/// What the sender last knew about the backend, persisted so `edge sync status` (another
/// process) can say whether sending is paused and why (SYN-7).
public struct SenderState: Sendable, Hashable {
    /// Retryable failures in a row (network, timeout, 408, 429, 5xx); reset by any answer that settles an entry.
    public let consecutiveFailures: Int
    /// Unix seconds; sending is paused until then (after 5 consecutive failures), nil when not paused.
    public let pausedUntil: Double?
    public let pauseReason: String?
    /// The last failure, without secrets: "HTTP 503 SERVER_ERROR", "could not connect to 127.0.0.1:8080".
    public let lastFailure: String?
    public let lastFailureAt: Double?
    /// Set when the server answered 426: the app version it refused. Sending stops until the
    /// agent runs as another version.
    public let upgradeRequiredVersion: String?
    public let upgradeMessage: String?

    public func isPaused(now: Double) -> Bool {
        guard let pausedUntil else { return false }
        return !ScheduledWait.isOver(pausedUntil, now: now)
    }

    /// True when this app version was told to upgrade.
    public func upgradeRequired(appVersion: String) -> Bool {
        upgradeRequiredVersion == appVersion
    }

    init(row: Row) {
        consecutiveFailures = row["consecutive_failures"]
        pausedUntil = row["paused_until"]
        pauseReason = row["pause_reason"]
        lastFailure = row["last_failure"]
        lastFailureAt = row["last_failure_at"]
        upgradeRequiredVersion = row["upgrade_required_version"]
        upgradeMessage = row["upgrade_message"]
    }
}
