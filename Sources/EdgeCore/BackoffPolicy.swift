/// Exponential backoff with full jitter (SYN-7): the n-th retry waits a uniformly random time
/// in [0, min(cap, base * 2^n)), so stations that lost the backend together do not return together.
/// In EdgeCore because the outbox sender and the FCM client both back off with it.
public struct BackoffPolicy: Sendable, Hashable {
    public var base: Double
    public var cap: Double

    public static let standard = BackoffPolicy(base: 1, cap: 60)

    public init(base: Double, cap: Double) {
        self.base = base
        self.cap = cap
    }

    /// The ceiling of the wait before retry number `failures` (0 for the first retry).
    public func ceiling(failures: Int) -> Double {
        // 2^6 already exceeds the cap of 60 s at base 1; clamping the exponent avoids overflow.
        let exponent = min(max(failures, 0), 30)
        return min(cap, base * Double(1 << exponent))
    }

    /// A wait drawn with full jitter; `unit` is a uniform random number in [0, 1).
    public func delay(failures: Int, unit: Double) -> Double {
        ceiling(failures: failures) * min(max(unit, 0), 1)
    }
}
