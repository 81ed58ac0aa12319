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

    /// Both buckets full again: the device has been quiet for an hour, and a fresh entry would
    /// behave the same, so the entry can be dropped.
    func isIdle(now: Double) -> Bool {
        var minute = self.minute, hour = self.hour
        minute.refill(now: now)
        hour.refill(now: now)
        return minute.tokens >= minute.limit && hour.tokens >= hour.limit
    }
}

/// The per-device limits of every device the relay sends to, bounded (issue #11, item 8):
/// every `pruneEvery` checks, entries of devices idle for an hour are dropped, so the map holds
/// only devices sent to within the last hour however many tokens pass through it.
struct DeviceLimiterMap {
    static let pruneEvery = 1024
    private var limits: [String: DeviceLimits] = [:]
    private var checks = 0

    var count: Int { limits.count }

    mutating func allow(_ token: String, now: Double) -> Bool {
        checks += 1
        if checks % Self.pruneEvery == 0 {
            limits = limits.filter { !$0.value.isIdle(now: now) }
        }
        var entry = limits[token] ?? DeviceLimits(now: now)
        let allowed = entry.take(now: now)
        limits[token] = entry
        return allowed
    }
}
