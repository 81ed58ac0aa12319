import EdgeContract

/// An order as this station last fetched it, and when (Unix seconds, this station's clock).
public struct CachedOrder: Sendable, Hashable {
    public let order: PurchaseOrder
    public let fetchedAt: Double

    public init(order: PurchaseOrder, fetchedAt: Double) {
        self.order = order
        self.fetchedAt = fetchedAt
    }

    /// Seconds since it was fetched; never negative (a clock set back shows 0, not a future).
    public func age(now: Double) -> Double { max(0, now - fetchedAt) }
}
