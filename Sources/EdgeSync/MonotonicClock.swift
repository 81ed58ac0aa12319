import Glibc

/// Seconds on CLOCK_MONOTONIC: for waits and rates, which must not jump with the wall clock.
public enum MonotonicClock {
    @Sendable public static func seconds() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
