/// A wall-clock time of day to the minute (quiet hours are configured in minutes).
public struct TimeOfDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// 0 ... 1439.
    public let minuteOfDay: Int

    public init(hour: Int, minute: Int = 0) throws(PushError) {
        guard (0 ... 23).contains(hour), (0 ... 59).contains(minute) else {
            throw PushError(.invalidArgument, "\(hour):\(minute) is not a time of day; use 00:00 to 23:59.",
                            context: ["hour": String(hour), "minute": String(minute)])
        }
        minuteOfDay = hour * 60 + minute
    }

    /// For constants known to be in range.
    init(minuteOfDay: Int) {
        self.minuteOfDay = minuteOfDay
    }

    /// Parses `HH:MM` (24-hour).
    public init(_ text: String) throws(PushError) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]) else {
            throw PushError(.invalidArgument, "\"\(String(text.prefix(20)))\" is not a time of day; use HH:MM such as 22:00.",
                            context: ["value": String(text.prefix(20))])
        }
        try self.init(hour: hour, minute: minute)
    }

    public var hour: Int { minuteOfDay / 60 }
    public var minute: Int { minuteOfDay % 60 }

    public static func < (lhs: TimeOfDay, rhs: TimeOfDay) -> Bool { lhs.minuteOfDay < rhs.minuteOfDay }

    /// `HH:MM`.
    public var description: String {
        (hour < 10 ? "0" : "") + String(hour) + ":" + (minute < 10 ? "0" : "") + String(minute)
    }
}
