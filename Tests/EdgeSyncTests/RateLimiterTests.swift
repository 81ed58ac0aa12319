import EdgeSync
import Synchronization
import XCTest

/// SYN-8 with a clock the test moves: no sleeping, no timing assertions.
final class RateLimiterTests: XCTestCase {
    final class FakeClock: Sendable {
        let now = Mutex<Double>(1000)
        func advance(_ seconds: Double) { now.withLock { $0 += seconds } }
        func read() -> Double { now.withLock { $0 } }
    }

    func testHundredPerMinuteThenOneEveryZeroPointSixSeconds() async {
        let clock = FakeClock()
        let limiter = RateLimiter(limit: 100, window: 60, clock: { clock.read() })
        for _ in 0..<100 {
            let taken = await limiter.tryAcquire()
            XCTAssertTrue(taken)
        }
        var taken = await limiter.tryAcquire()
        XCTAssertFalse(taken, "the 101st request in the same minute waits")
        clock.advance(0.5)
        taken = await limiter.tryAcquire()
        XCTAssertFalse(taken)
        clock.advance(0.1)
        taken = await limiter.tryAcquire()
        XCTAssertTrue(taken, "one token per 0.6 s comes back")
        // A long idle time refills to the limit, never beyond it.
        clock.advance(3600)
        var burst = 0
        while await limiter.tryAcquire() { burst += 1 }
        XCTAssertEqual(burst, 100)
    }
}
