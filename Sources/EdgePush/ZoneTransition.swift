/// The instant a zone switches to another local time type.
public struct ZoneTransition: Sendable, Hashable {
    /// Unix seconds of the first instant in the new type.
    public let instant: Int64
    public let type: LocalTimeType
}
