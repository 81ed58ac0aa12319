import Glibc

/// Parses `Retry-After` (SYN-7): delta-seconds, or an HTTP date (IMF-fixdate, RFC 7231 7.1.1.1,
/// e.g. "Sun, 06 Nov 1994 08:49:37 GMT"). Returns the wait in seconds from `now`, never
/// negative; nil for anything else, in which case the caller's own backoff applies.
///
/// Decision: the obsolete RFC 850 and asctime date forms are not accepted (servers must send
/// IMF-fixdate); a wait is capped at one hour so a hostile or broken value cannot park the
/// outbox or the FCM sender for days.
public enum RetryAfter {
    public static let maximumWait: Double = 3600

    public static func seconds(_ value: String, now: Double) -> Double? {
        let text = value.trimmingASCIISpaces()
        if !text.isEmpty, text.utf8.count <= 10, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let seconds = Double(text) {
            return min(seconds, maximumWait)
        }
        guard let date = imfFixdate(text) else { return nil }
        return min(max(0, date - now), maximumWait)
    }

    /// Unix seconds of an IMF-fixdate, or nil.
    static func imfFixdate(_ text: String) -> Double? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        let days = ["Mon,", "Tue,", "Wed,", "Thu,", "Fri,", "Sat,", "Sun,"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard parts.count == 6, days.contains(String(parts[0])), parts[5] == "GMT",
              parts[1].count == 2, let day = Int(parts[1]), (1...31).contains(day),
              let month = months.firstIndex(of: String(parts[2])),
              parts[3].count == 4, let year = Int(parts[3]), year >= 1970 else { return nil }
        let clock = parts[4].split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 }),
              let hour = Int(clock[0]), let minute = Int(clock[1]), let second = Int(clock[2]),
              hour < 24, minute < 60, second < 61 else { return nil }
        var parts_ = tm()
        parts_.tm_year = Int32(year - 1900)
        parts_.tm_mon = Int32(month)
        parts_.tm_mday = Int32(day)
        parts_.tm_hour = Int32(hour)
        parts_.tm_min = Int32(minute)
        parts_.tm_sec = Int32(second)
        let seconds = timegm(&parts_)
        guard seconds != -1 else { return nil }
        return Double(seconds)
    }
}

extension String {
    func trimmingASCIISpaces() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }),
              let last = scalars.lastIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
        return String(scalars[first...last])
    }
}
