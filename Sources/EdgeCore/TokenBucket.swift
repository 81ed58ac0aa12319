/// A token bucket: `limit` tokens per `window` seconds, full at first and refilled continuously.
/// A value, so callers that check many buckets on one path (the push relay, one per device) pay
/// no actor hop; `RateLimiter` wraps one for the outbox sender. In EdgeCore so the outbox
/// (EdgeSync) and the relay (EdgePush) share it without depending on each other.
public struct TokenBucket: Sendable {
    public let limit: Double
    public let window: Double
    public private(set) var tokens: Double
    private var updatedAt: Double

    public init(limit: Int, window: Double, now: Double) {
        self.limit = Double(max(1, limit))
        self.window = window
        tokens = self.limit
        updatedAt = now
    }

    /// Adds what the time since the last refill earned (a clock that steps back adds nothing).
    public mutating func refill(now: Double) {
        tokens = min(limit, tokens + max(0, now - updatedAt) * limit / window)
        updatedAt = max(updatedAt, now)
    }

    /// Takes a token if one is there at `now`.
    public mutating func take(now: Double) -> Bool {
        refill(now: now)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    /// Takes one token without checking; for callers that checked several buckets first.
    public mutating func spend() { tokens -= 1 }

    /// Seconds until a token is there, from the last refill.
    public var wait: Double { max(0, (1 - tokens) * window / limit) }
}
