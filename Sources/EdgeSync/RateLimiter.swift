import EdgeCore

/// Client-side rate limit (SYN-8): at most `limit` requests in any `window` seconds, as a token
/// bucket that starts full and refills continuously. `acquire` waits for a token.
///
/// Decision: the bucket lives in the sending process. Only one sender runs per database
/// (`SenderLock`), and the station has one database, so that is per device; a restart starts
/// with a full bucket, which at worst allows one extra burst after a crash.
public actor RateLimiter {
    public let limit: Int
    public let window: Double
    private var bucket: TokenBucket
    private let clock: @Sendable () -> Double

    public init(limit: Int = 100, window: Double = 60, clock: @escaping @Sendable () -> Double = MonotonicClock.seconds) {
        self.limit = max(1, limit)
        self.window = window
        self.clock = clock
        bucket = TokenBucket(limit: limit, window: window, now: clock())
    }

    /// Takes a token, waiting as long as needed; throws CancellationError when cancelled while waiting.
    public func acquire() async throws {
        while !bucket.take(now: clock()) {
            try await Task.sleep(nanoseconds: UInt64(max(bucket.wait, 0.001) * 1_000_000_000))
        }
    }

    /// Takes a token if one is there now.
    public func tryAcquire() -> Bool {
        bucket.take(now: clock())
    }
}
