import EdgeContract

/// A confirmation as queued (RCV-2): its outbox key, the request, the order it was checked
/// against (fresh, or cached when offline), the validator's suggestions and the photos.
public struct GRNConfirmation: Sendable, Hashable {
    public let idempotencyKey: String
    public let request: GRNConfirmRequest
    public let lookup: OrderLookup
    public let suggestions: [GRNIssue]
    public let photos: [StoredPhoto]

    /// Confirmed from the cached order because the backend could not be reached.
    public var offline: Bool {
        if case .cached = lookup { return true }
        return false
    }
}
