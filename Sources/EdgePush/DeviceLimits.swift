import EdgeCore

/// A device's two token buckets (PSH-10), full at first and refilled continuously: EdgeCore's
/// `TokenBucket`, as the outbox's `RateLimiter` uses it.
///
/// Decision: plain values inside the sender rather than two `RateLimiter` actors per device:
/// the sender asked both for every message, two actor hops each, on the path that decides
/// every send.
struct DeviceLimits {
    private var minute: TokenBucket
    private var hour: TokenBucket

    init(now: Double) {
        minute = TokenBucket(limit: 240, window: 60, now: now)
        hour = TokenBucket(limit: 5000, window: 3600, now: now)
    }

    /// Takes from both or from neither: a refusal by the minute limit does not use up the hour.
    mutating func take(now: Double) -> Bool {
        minute.refill(now: now)
        hour.refill(now: now)
        guard minute.tokens >= 1, hour.tokens >= 1 else { return false }
        minute.spend()
        hour.spend()
        return true
    }
}
