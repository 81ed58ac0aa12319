import FoundationEssentials

/// A GS1 date field (YYMMDD) with its century resolved and day 00 read (GS1 GenSpecs 7.12).
///
/// Decisions:
/// - Century: GS1's sliding window. A YY 51-99 years ahead of the reference year's YY is in the
///   previous century, one 50-99 years behind it in the next; else the reference year's century.
///   The reference year is the caller's (the classifier uses the current UTC year), so parsing
///   stays pure and tests are fixed.
/// - Day 00 ("year and month only", allowed for AIs 11-17 and a few others): the date is the last
///   day of that month, which is what GS1 states for best-before and expiry dates; for a
///   production or packaging date the month is all the label says, and `dayGiven` is false.
public struct GS1Date: Sendable, Hashable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    /// The day the date means: the printed one, or the month's last when DD was 00.
    public let day: Int
    /// False when the label said DD = 00.
    public let dayGiven: Bool

    /// The date `yymmdd` states, or why it is none.
    static func parse(_ yymmdd: ArraySlice<UInt8>, dayZero: Bool, referenceYear: Int) -> Result<GS1Date, Problem> {
        guard yymmdd.count == 6, yymmdd.allSatisfy(ASCII.isDigit) else { return .failure(.notDigits) }
        let digits = yymmdd.map { Int($0 - UInt8(ascii: "0")) }
        let yy = digits[0] * 10 + digits[1], month = digits[2] * 10 + digits[3], day = digits[4] * 10 + digits[5]
        guard (1...12).contains(month) else { return .failure(.month(month)) }
        let year = resolvedYear(yy, referenceYear: referenceYear)
        let last = daysIn(month: month, year: year)
        if day == 0 {
            guard dayZero else { return .failure(.dayZeroNotAllowed) }
            return .success(GS1Date(year: year, month: month, day: last, dayGiven: false))
        }
        guard day <= last else { return .failure(.day(day, month: month, year: year, last: last)) }
        return .success(GS1Date(year: year, month: month, day: day, dayGiven: true))
    }

    /// Why six digits are not a date, for `GS1Parser`'s message.
    enum Problem: Error, Equatable {
        case notDigits
        case month(Int)
        case dayZeroNotAllowed
        case day(Int, month: Int, year: Int, last: Int)

        var text: String {
            switch self {
            case .notDigits: return "a date is six digits, YYMMDD"
            case .month(let month): return "month \(month) does not exist"
            case .dayZeroNotAllowed: return "day 00 (month only) is not allowed for this AI"
            case .day(let day, let month, let year, let last):
                return "\(GS1Date.monthNames[month - 1]) \(year) has \(last) days, not \(day)"
            }
        }
    }

    /// GS1's sliding window (GenSpecs 7.12) around `referenceYear`.
    static func resolvedYear(_ yy: Int, referenceYear: Int) -> Int {
        let century = referenceYear - ((referenceYear % 100) + 100) % 100
        let difference = yy - (referenceYear - century)
        if difference >= 51 { return century - 100 + yy }
        if difference <= -50 { return century + 100 + yy }
        return century + yy
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    static let monthNames = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                             "October", "November", "December"]

    /// `2020-12-25`: the ISO 8601 date (for day 00, the month's last day).
    public var iso: String {
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : String(n) }
        return "\(year)-\(two(month))-\(two(day))"
    }

    public var description: String { iso }

    /// The current UTC year: the classifier's reference year when none is configured.
    public static func currentYear(now: Date = Date()) -> Int {
        // Days since 1970-01-01 to a civil year (Howard Hinnant's days_from_civil, inverted).
        let days = Int((now.timeIntervalSince1970 / 86_400).rounded(.down)) + 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        return yearOfEra + era * 400 + (monthIndex >= 10 ? 1 : 0)
    }
}
