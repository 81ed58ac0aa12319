/// Times the station schedules ahead in wall-clock seconds (an entry's next attempt, a lease's
/// end, the sender's pause) and a wall clock that may be stepped back (issue #30 item 2: a manual
/// correction, NTP on a station without RTC). Nothing is ever scheduled further ahead than
/// `longest`, so a time further ahead than that was scheduled before the clock went back: it is
/// treated as passed, rather than holding an entry, a lease or the whole sender for as long as
/// the step. This is for steps nobody saw (while the station was off): the running sender sees a
/// step back and moves its waits with it (`Outbox.moveWaits`), and a smaller unseen step back
/// (under an hour) still adds itself to waits scheduled before it, at most an hour. (A step
/// forward only makes waits end early, which costs a retry, never an entry; the server's own
/// Retry-After is kept on the monotonic clock by the sender.)
public enum ScheduledWait {
    /// The longest wait anything schedules: a server's Retry-After is capped at one hour
    /// (`RetryAfter.maximumWait`); backoff (60 s), the sender's pause (300 s) and leases are shorter.
    public static let longest: Double = 3600

    /// True when `until` has passed at `now`, or lies beyond anything the station schedules.
    public static func isOver(_ until: Double, now: Double) -> Bool {
        until <= now || until > now + longest
    }
}
