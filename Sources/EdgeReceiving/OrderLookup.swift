import EdgeContract

/// What a PO lookup shows (RCV-1): the order fresh from the backend, the cached copy with its
/// age when the backend cannot be reached, or "not available offline" for an order this station
/// never fetched. Only the last is not an order; it is an answer, not a failure.
public enum OrderLookup: Sendable, Hashable {
    case online(PurchaseOrder, fetchedAt: Double)
    case cached(CachedOrder, reason: String)
    case notAvailableOffline(poNumber: String, reason: String)

    public var order: PurchaseOrder? {
        switch self {
        case .online(let order, _): order
        case .cached(let cached, _): cached.order
        case .notAvailableOffline: nil
        }
    }

    public var poNumber: String {
        switch self {
        case .online(let order, _): order.poNumber
        case .cached(let cached, _): cached.order.poNumber
        case .notAvailableOffline(let poNumber, _): poNumber
        }
    }

    /// "online", "cache" or "unavailable" (models/receive-order.schema.json `source`).
    public var source: String {
        switch self {
        case .online: "online"
        case .cached: "cache"
        case .notAvailableOffline: "unavailable"
        }
    }
}
