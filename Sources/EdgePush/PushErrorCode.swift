/// What went wrong in EdgePush, for callers that branch on it.
public enum PushErrorCode: String, Sendable, Hashable {
    /// The IANA zone name is empty, too long, absolute, contains ".." or odd characters.
    case invalidZoneName
    /// No file for the zone under the zoneinfo directory.
    case unknownZone
    /// The zone file is not a TZif file edge can read (truncated, inconsistent, leap seconds).
    case invalidZoneFile
    /// Quiet hours start == end, or the window is longer than 20 hours (PSH-3).
    case invalidQuietHours
    /// A time of day outside 00:00-23:59, an empty user id or token, or another bad field.
    case invalidArgument
    /// The record cannot move to that status (a SENT record never becomes QUEUED again).
    case invalidTransition
    /// No notification record, digest or user with that id.
    case notFound
    /// SQLite reported an error; `context["sqlite"]` has its description.
    case databaseFailure
}
