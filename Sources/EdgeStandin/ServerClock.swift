import FoundationEssentials

/// The stand-in's timestamps: RFC 3339 in UTC with milliseconds (`...T08:14:04.012Z`). A server
/// has no local wall clock worth keeping; `Z` is its UTC offset (SYN-10).
enum ServerClock {
    static func now() -> String {
        Date.now.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
