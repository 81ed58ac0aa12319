/// The POSIX TZ string in a TZif footer (RFC 8536 section 3.3), e.g. `CET-1CEST,M3.5.0,M10.5.0/3`:
/// it gives local time for instants after the file's last transition.
struct PosixTZRule: Sendable, Hashable {
    let standard: LocalTimeType
    let daylight: DaylightRule?

    struct DaylightRule: Sendable, Hashable {
        let type: LocalTimeType
        let start: PosixTZDate
        /// Seconds after local midnight, standard time (may be negative or beyond 24 h in v3).
        let startTime: Int64
        let end: PosixTZDate
        /// Seconds after local midnight, daylight time.
        let endTime: Int64
    }

    /// The two transitions of `year`, in instant order.
    func transitions(inYear year: Int) -> [ZoneTransition] {
        guard let daylight else { return [] }
        let start = daylight.start.days(inYear: year) * 86_400 + daylight.startTime - Int64(standard.utcOffset)
        let end = daylight.end.days(inYear: year) * 86_400 + daylight.endTime - Int64(daylight.type.utcOffset)
        let both = [ZoneTransition(instant: start, type: daylight.type), ZoneTransition(instant: end, type: standard)]
        return both.sorted { $0.instant < $1.instant }
    }

    /// The local time type in effect at `instant`.
    func type(at instant: Int64) -> LocalTimeType {
        guard daylight != nil else { return standard }
        let year = LocalDateTime(secondsSinceEpoch: instant).year
        var current: LocalTimeType?
        for candidate in year - 1 ... year + 1 {
            for transition in transitions(inYear: candidate) where transition.instant <= instant {
                current = transition.type
            }
        }
        return current ?? standard
    }

    /// Parses a footer; nil for an empty one (the zone then keeps its last type forever).
    static func parse(_ text: String) throws(PushError) -> PosixTZRule? {
        guard !text.isEmpty else { return nil }
        var scanner = Scanner(bytes: Array(text.utf8), text: text)
        let standardName = try scanner.name()
        let standardOffset = try scanner.offset()
        let standard = LocalTimeType(utcOffset: Int32(-standardOffset), isDST: false, abbreviation: standardName)
        guard !scanner.atEnd else { return PosixTZRule(standard: standard, daylight: nil) }

        let daylightName = try scanner.name()
        // POSIX: without an explicit offset, daylight time is one hour ahead of standard time.
        var daylightOffset = standardOffset - 3600
        if let byte = scanner.peek, byte != UInt8(ascii: ",") {
            daylightOffset = try scanner.offset()
        }
        // Decision: a DST name without a rule is refused; every tzdata footer spells the rule out,
        // and guessing the US rule (the POSIX default) would be wrong everywhere else.
        try scanner.expect(UInt8(ascii: ","))
        let start = try scanner.date()
        let startTime = try scanner.optionalTime()
        try scanner.expect(UInt8(ascii: ","))
        let end = try scanner.date()
        let endTime = try scanner.optionalTime()
        guard scanner.atEnd else { throw scanner.failure("trailing characters") }
        let daylightType = LocalTimeType(utcOffset: Int32(-daylightOffset), isDST: true, abbreviation: daylightName)
        return PosixTZRule(standard: standard, daylight: DaylightRule(type: daylightType, start: start, startTime: startTime,
                                                                      end: end, endTime: endTime))
    }

    private struct Scanner {
        let bytes: [UInt8]
        let text: String
        var index = 0

        var atEnd: Bool { index >= bytes.count }
        var peek: UInt8? { atEnd ? nil : bytes[index] }

        func failure(_ why: String) -> PushError {
            PushError(.invalidZoneFile, "The zone's POSIX TZ rule \"\(text)\" cannot be read (\(why)).",
                      context: ["rule": text, "position": String(index)])
        }

        mutating func expect(_ byte: UInt8) throws(PushError) {
            guard peek == byte else { throw failure("expected \"\(Character(Unicode.Scalar(byte)))\"") }
            index += 1
        }

        /// `CET` (three or more letters) or `<+1030>` (quoted: letters, digits, + and -).
        mutating func name() throws(PushError) -> String {
            let begin = index
            if peek == UInt8(ascii: "<") {
                index += 1
                let inner = index
                while let byte = peek, byte != UInt8(ascii: ">") { index += 1 }
                let name = String(decoding: bytes[inner ..< index], as: UTF8.self)
                try expect(UInt8(ascii: ">"))
                guard name.utf8.count >= 3 else { throw failure("name shorter than 3 characters") }
                return name
            }
            while let byte = peek, (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) { index += 1 }
            guard index - begin >= 3 else { throw failure("name shorter than 3 characters") }
            return String(decoding: bytes[begin ..< index], as: UTF8.self)
        }

        /// `[+-]hh[:mm[:ss]]` as seconds (hours up to 24 for offsets, 167 for rule times).
        mutating func hms(maxHours: Int64) throws(PushError) -> Int64 {
            var sign: Int64 = 1
            if peek == UInt8(ascii: "+") { index += 1 } else if peek == UInt8(ascii: "-") { sign = -1; index += 1 }
            let hours = try number(max: maxHours)
            var total = hours * 3600
            if peek == UInt8(ascii: ":") {
                index += 1
                total += try number(max: 59) * 60
                if peek == UInt8(ascii: ":") {
                    index += 1
                    total += try number(max: 59)
                }
            }
            return sign * total
        }

        mutating func offset() throws(PushError) -> Int64 { try hms(maxHours: 24) }

        mutating func optionalTime() throws(PushError) -> Int64 {
            guard peek == UInt8(ascii: "/") else { return 7200 }
            index += 1
            return try hms(maxHours: 167)
        }

        mutating func date() throws(PushError) -> PosixTZDate {
            if peek == UInt8(ascii: "M") {
                index += 1
                let month = try number(max: 12)
                try expect(UInt8(ascii: "."))
                let week = try number(max: 5)
                try expect(UInt8(ascii: "."))
                let weekday = try number(max: 6)
                guard month >= 1, week >= 1 else { throw failure("month or week out of range") }
                return .monthWeekDay(month: Int(month), week: Int(week), weekday: Int(weekday))
            }
            if peek == UInt8(ascii: "J") {
                index += 1
                let day = try number(max: 365)
                guard day >= 1 else { throw failure("Julian day 0") }
                return .julianNoLeap(Int(day))
            }
            return .zeroBased(Int(try number(max: 365)))
        }

        mutating func number(max: Int64) throws(PushError) -> Int64 {
            let begin = index
            var value: Int64 = 0
            while let byte = peek, byte >= 48, byte <= 57, index - begin < 4 {
                value = value * 10 + Int64(byte - 48)
                index += 1
            }
            guard index > begin, value <= max else { throw failure("number missing or out of range") }
            return value
        }
    }
}
