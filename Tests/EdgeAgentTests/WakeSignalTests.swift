import EdgeAgent
import Testing

/// The puller's and the retried parts' wake-up (issue #30 item 5: after its first timeout every
/// wait returned at once, so the puller spun). A timed-out wait leaves the signal as it was.
@Suite struct WakeSignalTests {
    /// Each of several waits in a row that nobody wakes lasts its whole duration (a lower bound:
    /// a sleep never ends early, so this cannot fail on a slow machine).
    @Test func everyWaitNobodyWakesLastsItsDuration() async {
        let signal = WakeSignal()
        let clock = ContinuousClock()
        for _ in 0..<3 {
            let started = clock.now
            await signal.wait(upTo: .milliseconds(150))
            #expect(clock.now - started >= .milliseconds(150))
        }
    }

    /// A wake after timeouts still ends the next wait, and one given while nobody waits is kept
    /// for the next wait (once: many wakes, one pass).
    @Test func wakesAreDeliveredAfterTimeoutsAndKeptUntilSomeoneWaits() async {
        let signal = WakeSignal()
        await signal.wait(upTo: .milliseconds(10))
        await signal.wait(upTo: .milliseconds(10))
        let waiting = Task { await signal.wait(upTo: .seconds(3600)) }
        // Whether it comes before the task waits or while it waits, the wake ends that wait.
        signal.wake()
        await waiting.value
        signal.wake()
        signal.wake()
        let clock = ContinuousClock()
        let started = clock.now
        await signal.wait(upTo: .seconds(3600))     // the kept wake: returns at once
        await signal.wait(upTo: .milliseconds(100))  // the two wakes were one: this one times out
        #expect(clock.now - started >= .milliseconds(100))
        #expect(clock.now - started < .seconds(3600))
    }
}
