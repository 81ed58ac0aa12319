/// One line of a purchase order. Quantities are JSON numbers, not integers: goods are received
/// by weight or length as well as by the piece (`unit` says which).
public struct PurchaseOrderLine: Sendable, Hashable, Codable {
    public var lineNo: Int
    /// The item's code (a material code, a GTIN or the vendor's article number).
    public var item: String
    public var description: String
    public var ordered: Double
    /// Already received, over all earlier GRNs.
    public var received: Double
    public var unit: String

    public init(lineNo: Int, item: String, description: String, ordered: Double, received: Double, unit: String) {
        self.lineNo = lineNo
        self.item = item
        self.description = description
        self.ordered = ordered
        self.received = received
        self.unit = unit
    }

    enum CodingKeys: String, CodingKey {
        case lineNo = "line_no"
        case item, description, ordered, received, unit
    }
}
