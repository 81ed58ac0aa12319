/// A daily quiet window in the user's zone (PSH-3): half-open [start, end) on the wall clock;
/// `start > end` is one window across midnight.
///
/// Decisions for DST days (the window is a pair of instants per day, never re-read from the wall
/// clock, so a repeated hour cannot reopen or re-close it):
/// - A start or end that falls in a spring-forward gap (02:30 in Berlin on 2026-03-29) is the
///   instant the clock jumps past it (03:00 CEST): the window starts or ends at the jump.
/// - A start or end that falls in an autumn overlap (02:30 twice in Berlin on 2026-10-25) is the
///   first time the clock reads it (02:30 CEST); the window does not end or start again when the
///   clock reads it a second time an hour later.
/// - The window's length follows the clock: 22:00-07:00 lasts 8 h on a spring-forward night and
///   10 h on an autumn night, since people sleep by the wall clock.
public struct QuietHours: Sendable, Hashable {
    public static let standard = QuietHours(unchecked: TimeOfDay(minuteOfDay: 22 * 60), TimeOfDay(minuteOfDay: 7 * 60))
    /// Longer windows are refused (PSH-3): a push that waits most of a day is a misconfiguration.
    public static let maxMinutes = 20 * 60

    public let start: TimeOfDay
    public let end: TimeOfDay

    /// Throws `.invalidQuietHours` when start == end or the window is longer than 20 h.
    public init(start: TimeOfDay, end: TimeOfDay) throws(PushError) {
        guard start != end else {
            throw PushError(.invalidQuietHours, "Quiet hours from \(start) to \(end) are empty or a whole day; choose different start and end times.",
                            context: ["start": start.description, "end": end.description])
        }
        let length = (end.minuteOfDay - start.minuteOfDay + 1440) % 1440
        guard length <= Self.maxMinutes else {
            throw PushError(.invalidQuietHours, "Quiet hours from \(start) to \(end) last \(length / 60) h \(length % 60) min; at most 20 h are allowed.",
                            context: ["start": start.description, "end": end.description, "minutes": String(length)])
        }
        self.start = start
        self.end = end
    }

    private init(unchecked start: TimeOfDay, _ end: TimeOfDay) {
        self.start = start
        self.end = end
    }

    public var crossesMidnight: Bool { start > end }

    /// Whether `instant` is inside the window in `zone`, and if so when the window ends.
    public func evaluate(at instant: Int64, in zone: TimeZoneRules) -> QuietHoursState {
        let today = zone.zonedTime(at: instant).local
        // The window that holds `instant` started today or yesterday on the wall clock; tomorrow
        // covers zones whose clock falls back across midnight.
        for dayOffset in [-1, 0, 1] {
            let (from, until) = window(startingOn: today.addingDays(dayOffset), in: zone)
            if from <= instant, instant < until { return .quiet(until: until) }
        }
        return .open
    }

    /// `evaluate(at:in:)` for a user's preferences; a user without a zone uses `stationZone`.
    public static func evaluate(at instant: Int64, _ preferences: PushPreferences, stationZone: String,
                                zones: TimeZoneDatabase = .system) throws(PushError) -> QuietHoursState {
        let zone = try zones.rules(for: preferences.timeZone ?? stationZone)
        return preferences.quietHours.evaluate(at: instant, in: zone)
    }

    /// The window's instants for the wall-clock day `day` (its time fields are ignored).
    public func window(startingOn day: LocalDateTime, in zone: TimeZoneRules) -> (start: Int64, end: Int64) {
        let startLocal = LocalDateTime(year: day.year, month: day.month, day: day.day, hour: start.hour, minute: start.minute)
        var endLocal = LocalDateTime(year: day.year, month: day.month, day: day.day, hour: end.hour, minute: end.minute)
        if crossesMidnight { endLocal = endLocal.addingDays(1) }
        return (zone.firstInstant(for: startLocal), zone.firstInstant(for: endLocal))
    }
}
