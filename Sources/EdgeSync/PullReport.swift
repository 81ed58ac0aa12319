/// What a pull applied (SYN-9).
public struct PullReport: Sendable, Hashable {
    public var pages = 0
    public var changes = 0
    /// The cursor now stored.
    public var cursor: String?

    public init() {}
}
