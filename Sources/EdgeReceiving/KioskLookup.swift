import EdgeContract

/// What the kiosk shows next after a dock camera read a PO label or a vendor card (UI-2): the
/// order (fresh, cached or not available offline), the vendor card, or why it could not be shown.
public struct KioskLookup: Sendable, Hashable {
    public enum Content: Sendable, Hashable {
        case order(OrderLookup)
        case vendor(VendorInfo)
        /// The read could not be looked up (another tenant's card, the backend refused, ...).
        case refused(code: ReceivingErrorCode, message: String)
    }

    /// The camera's configured name.
    public var camera: String
    /// Unix seconds the scan was captured.
    public var seenAt: Double
    public var content: Content
}
