/// Reports a code seen in consecutive camera frames once (SCN-7): again only after it has been
/// out of view for `gap`, or, with a `cooldown`, once that long has passed since it was last
/// reported even if it never left the view.
///
/// A code is the same code when symbology and payload bytes match (position is ignored: a hand
/// holding a label moves it between frames). One filter per camera.
public struct RepeatFilter: Sendable {
    public let gap: Duration
    public let cooldown: Duration?
    /// Per code: when it was last reported and last seen.
    private var sightings: [RepeatFilterKey: (reported: ContinuousClock.Instant, seen: ContinuousClock.Instant)] = [:]

    public init(gap: Duration = .milliseconds(1500), cooldown: Duration? = nil) {
        self.gap = gap
        self.cooldown = cooldown
    }

    /// True when `result`, seen at `now`, should be reported.
    public mutating func admit(_ result: ScanResult, at now: ContinuousClock.Instant) -> Bool {
        let key = RepeatFilterKey(format: result.format, bytes: result.bytes)
        defer { prune(now) }
        if let previous = sightings[key] {
            let stayedInView = now - previous.seen < gap
            let cooledDown = cooldown.map { now - previous.reported >= $0 } ?? false
            if stayedInView && !cooledDown {
                sightings[key] = (previous.reported, now)
                return false
            }
        }
        sightings[key] = (now, now)
        return true
    }

    /// Codes out of view for longer than the gap are forgotten, so memory stays bounded however
    /// many different codes pass the camera.
    private mutating func prune(_ now: ContinuousClock.Instant) {
        guard sightings.count > 64 else { return }
        sightings = sightings.filter { now - $0.value.seen < gap }
    }
}
