/// A UTC instant as seen on a zone's wall clock.
public struct ZonedTime: Sendable, Hashable {
    /// Unix seconds.
    public let instant: Int64
    public let local: LocalDateTime
    public let type: LocalTimeType

    public var utcOffset: Int32 { type.utcOffset }
}
