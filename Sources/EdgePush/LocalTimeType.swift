/// One of a zone's local time types (RFC 8536 "ttinfo"): UTC offset, DST flag, abbreviation.
public struct LocalTimeType: Sendable, Hashable {
    /// Seconds east of UTC (Berlin in winter: 3600).
    public let utcOffset: Int32
    public let isDST: Bool
    public let abbreviation: String

    public init(utcOffset: Int32, isDST: Bool, abbreviation: String) {
        self.utcOffset = utcOffset
        self.isDST = isDST
        self.abbreviation = abbreviation
    }
}
