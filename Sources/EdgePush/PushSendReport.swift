/// What one pass of the push sender did.
public struct PushSendReport: Sendable, Hashable {
    /// Notifications and digests marked SENT (at least one device took them).
    public var sent = 0
    /// Marked FAILED: every device refused, none left, or the TTL / 60 minutes ran out.
    public var failed = 0
    /// Left QUEUED for a later pass (transient errors, quota, per-device limits).
    public var deferred = 0
    /// Device tokens retired because FCM said they are dead (PSH-9).
    public var prunedTokens = 0
    /// The tokens retired, with FCM's reason.
    public var retired: [RetiredToken] = []
    /// Ids of the notifications (not digests) marked SENT, for latency figures.
    public var sentNotifications: [Int64] = []
    /// Why sends were deferred this pass, by reason (FCM's code, `TRANSPORT_...`, a limit), so
    /// an operator sees what sending waits for.
    public var deferredReasons: [String: Int] = [:]
    /// Why no access token could be had, when that held sends back (PSH-8: a clock or
    /// configuration error for the operator).
    public var authenticationError: String?

    public init() {}
}

extension PushSendReport {
    /// Adds `other`'s counts, tokens, ids and reasons to this report.
    public mutating func add(_ other: PushSendReport) {
        sent += other.sent
        failed += other.failed
        deferred += other.deferred
        prunedTokens += other.prunedTokens
        retired += other.retired
        sentNotifications += other.sentNotifications
        authenticationError = other.authenticationError ?? authenticationError
        deferredReasons.merge(other.deferredReasons, uniquingKeysWith: +)
    }
}
