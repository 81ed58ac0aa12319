/// A recent purchase order of a material or from a vendor, as a one-line summary.
public struct RecentOrder: Sendable, Hashable, Codable {
    public var poNumber: String
    /// With UTC offset.
    public var orderedAt: String
    public var quantity: Double
    public var unit: String
    public var status: PurchaseOrder.Status

    public init(poNumber: String, orderedAt: String, quantity: Double, unit: String, status: PurchaseOrder.Status) {
        self.poNumber = poNumber
        self.orderedAt = orderedAt
        self.quantity = quantity
        self.unit = unit
        self.status = status
    }

    enum CodingKeys: String, CodingKey {
        case poNumber = "po_number"
        case orderedAt = "ordered_at"
        case quantity, unit, status
    }
}
