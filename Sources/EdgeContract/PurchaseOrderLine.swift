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
    /// Units in one scanned pack of `item` (a carton of 12): a scan of the item's code counts
    /// this many (RCV-9). Absent: a scan counts one.
    public var packSize: Double?

    public init(lineNo: Int, item: String, description: String, ordered: Double, received: Double, unit: String, packSize: Double? = nil) {
        self.lineNo = lineNo
        self.item = item
        self.description = description
        self.ordered = ordered
        self.received = received
        self.unit = unit
        self.packSize = packSize
    }

    enum CodingKeys: String, CodingKey {
        case lineNo = "line_no"
        case item, description, ordered, received, unit
        case packSize = "pack_size"
    }
}
