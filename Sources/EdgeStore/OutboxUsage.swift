/// Stored unsent work against the limits; `level` is the higher of the two ratios.
public struct OutboxUsage: Sendable, Hashable {
    public let entries: Int
    public let bytes: Int
    public let limits: OutboxLimits

    public init(entries: Int, bytes: Int, limits: OutboxLimits) {
        self.entries = entries
        self.bytes = bytes
        self.limits = limits
    }

    public var level: StorageLevel {
        // Integer cross-multiplication: exact at the thresholds, no rounding surprises.
        func level(_ used: Int, _ limit: Int) -> StorageLevel {
            if used * 100 >= limit * 95 { return .warning95 }
            if used * 100 >= limit * 80 { return .warning80 }
            return .normal
        }
        return max(level(entries, limits.maxEntries), level(bytes, limits.maxBytes))
    }
}
