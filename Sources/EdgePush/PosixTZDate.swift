/// The day part of a POSIX TZ rule (`Jn`, `n` or `Mm.w.d`).
enum PosixTZDate: Sendable, Hashable {
    /// `Jn`: day 1...365, February 29 never counted.
    case julianNoLeap(Int)
    /// `n`: day 0...365, February 29 counted in leap years.
    case zeroBased(Int)
    /// `Mm.w.d`: weekday d (0 = Sunday) of week w (5 = last) of month m.
    case monthWeekDay(month: Int, week: Int, weekday: Int)

    /// Days from 1970-01-01 to this date in `year`.
    func days(inYear year: Int) -> Int64 {
        let january1 = LocalDateTime.days(year: year, month: 1, day: 1)
        switch self {
        case .julianNoLeap(let n):
            // Day 60 is March 1 whether or not the year has a February 29.
            let leapShift = LocalDateTime.isLeapYear(year) && n >= 60 ? 1 : 0
            return january1 + Int64(n - 1 + leapShift)
        case .zeroBased(let n):
            return january1 + Int64(n)
        case .monthWeekDay(let month, let week, let weekday):
            let first = LocalDateTime.days(year: year, month: month, day: 1)
            let firstWeekday = Int(LocalDateTime.floorModulo(first + 4, 7))
            var day = 1 + (weekday - firstWeekday + 7) % 7 + (week - 1) * 7
            let length = LocalDateTime.daysInMonth(year: year, month: month)
            while day > length { day -= 7 }
            return first + Int64(day - 1)
        }
    }
}
