import Glibc

/// ISO 8601 local wall-clock time with its UTC offset (SYN-10), e.g. `2025-03-04T10:15:30.250+01:00`.
///
/// Formatted with `localtime_r` because FoundationEssentials has no time-zone database; the C
/// library reads the system's (TZ, /etc/localtime).
public enum LocalTimestamp {
    public static func string(epochSeconds: Double) -> String {
        var whole = time_t(epochSeconds.rounded(.down))
        let millis = min(999, max(0, Int(((epochSeconds - Double(whole)) * 1000).rounded(.down))))
        var parts = tm()
        guard localtime_r(&whole, &parts) != nil else {
            // No local time available: UTC is still a correct instant with an explicit offset.
            gmtime_r(&whole, &parts)
            parts.tm_gmtoff = 0
            return format(parts, millis: millis)
        }
        return format(parts, millis: millis)
    }

    private static func format(_ parts: tm, millis: Int) -> String {
        let offset = Int(parts.tm_gmtoff)
        let sign = offset < 0 ? "-" : "+"
        let offsetMinutes = abs(offset) / 60
        return pad(Int(parts.tm_year) + 1900, 4) + "-" + pad(Int(parts.tm_mon) + 1, 2) + "-"
            + pad(Int(parts.tm_mday), 2) + "T" + pad(Int(parts.tm_hour), 2) + ":"
            + pad(Int(parts.tm_min), 2) + ":" + pad(Int(parts.tm_sec), 2) + "." + pad(millis, 3)
            + sign + pad(offsetMinutes / 60, 2) + ":" + pad(offsetMinutes % 60, 2)
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
