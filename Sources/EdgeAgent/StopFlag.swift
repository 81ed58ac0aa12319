import Glibc
import Synchronization

/// Set once by a signal handler, a deadline or a graceful shutdown, read by capture threads.
public final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    public init() {}

    public func set() { flag.store(true, ordering: .relaxed) }
    public var isSet: Bool { flag.load(ordering: .relaxed) }

    /// Sleeps up to `duration` on the calling thread (a capture thread, not the cooperative
    /// pool), looking at the flag every 50 ms; true when it was set.
    public func wait(upTo duration: Duration) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + duration
        while !isSet, clock.now < deadline {
            let (seconds, attoseconds) = min(deadline - clock.now, .milliseconds(50)).components
            var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
            var remaining = timespec()
            while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
        }
        return isSet
    }
}
