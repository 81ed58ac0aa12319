/// One zone's rules, read from its TZif file: converts UTC instants to wall-clock time and back.
public struct TimeZoneRules: Sendable {
    public let name: String
    /// Explicit transitions from the file, ascending.
    let transitions: [ZoneTransition]
    /// The type before the first transition (RFC 8536: local time type 0).
    let initialType: LocalTimeType
    /// The footer rule for instants after the last transition; nil keeps the last type.
    let footer: PosixTZRule?

    init(name: String, transitions: [ZoneTransition], initialType: LocalTimeType, footer: PosixTZRule?) {
        self.name = name
        self.transitions = transitions
        self.initialType = initialType
        self.footer = footer
    }

    /// The local time type in effect at `instant` (Unix seconds).
    public func type(at instant: Int64) -> LocalTimeType {
        guard let last = transitions.last else { return footer?.type(at: instant) ?? initialType }
        guard instant >= last.instant else {
            // Binary search for the last transition at or before the instant.
            var low = 0
            var high = transitions.count
            while low < high {
                let middle = (low + high) / 2
                if transitions[middle].instant <= instant { low = middle + 1 } else { high = middle }
            }
            return low == 0 ? initialType : transitions[low - 1].type
        }
        return footer?.type(at: instant) ?? last.type
    }

    /// The wall-clock time and offset at `instant`.
    public func zonedTime(at instant: Int64) -> ZonedTime {
        let type = type(at: instant)
        return ZonedTime(instant: instant, local: LocalDateTime(secondsSinceEpoch: instant + Int64(type.utcOffset)), type: type)
    }

    /// Every instant whose wall clock reads `local`, ascending: one normally, none in a
    /// spring-forward gap, two in an autumn overlap.
    public func instants(for local: LocalDateTime) -> [Int64] {
        let wall = local.secondsSinceEpoch
        // Offsets are within ±26 h, so every instant that can read `wall` lies in this range;
        // each offset in effect there is a candidate, kept if it really applies at wall - offset.
        let range = (wall - 26 * 3600) ... (wall + 26 * 3600)
        var offsets: Set<Int32> = [type(at: range.lowerBound).utcOffset]
        for transition in transitions(in: range) { offsets.insert(transition.type.utcOffset) }
        var result: [Int64] = []
        for offset in offsets {
            let candidate = wall - Int64(offset)
            if type(at: candidate).utcOffset == offset { result.append(candidate) }
        }
        return result.sorted()
    }

    /// The instant the wall clock first reads `local`; in a spring-forward gap, the first instant
    /// after the gap (the moment the clock jumps past `local`).
    public func firstInstant(for local: LocalDateTime) -> Int64 {
        if let first = instants(for: local).first { return first }
        let wall = local.secondsSinceEpoch
        // In a gap: the transition whose jump skips `wall` is the last one before the instant the
        // old offset would give.
        let range = (wall - 26 * 3600) ... (wall + 26 * 3600)
        for transition in transitions(in: range) {
            let before = type(at: transition.instant - 1).utcOffset
            let after = transition.type.utcOffset
            if transition.instant + Int64(before) <= wall, wall < transition.instant + Int64(after) {
                return transition.instant
            }
        }
        // Unreachable for consistent data; the old offset's reading is the closest honest answer.
        return wall - Int64(type(at: wall).utcOffset)
    }

    /// Transitions (explicit and footer-generated) inside `range`, ascending.
    public func transitions(in range: ClosedRange<Int64>) -> [ZoneTransition] {
        // Binary search for the first one in range: a zone has hundreds, and quiet hours ask
        // for six ranges a notification (issue #31).
        var low = 0
        var high = transitions.count
        while low < high {
            let middle = (low + high) / 2
            if transitions[middle].instant < range.lowerBound { low = middle + 1 } else { high = middle }
        }
        var result: [ZoneTransition] = []
        while low < transitions.count, transitions[low].instant <= range.upperBound {
            result.append(transitions[low])
            low += 1
        }
        let lastExplicit = transitions.last?.instant ?? Int64.min
        if let footer, range.upperBound > lastExplicit {
            let firstYear = LocalDateTime(secondsSinceEpoch: max(range.lowerBound, lastExplicit)).year - 1
            let lastYear = LocalDateTime(secondsSinceEpoch: range.upperBound).year + 1
            for year in firstYear ... lastYear {
                for transition in footer.transitions(inYear: year)
                where transition.instant > lastExplicit && range.contains(transition.instant) {
                    result.append(transition)
                }
            }
        }
        return result.sorted { $0.instant < $1.instant }
    }
}
