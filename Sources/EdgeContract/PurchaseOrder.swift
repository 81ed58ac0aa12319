/// A purchase order as the server has it (RCV-1): the answer to a PO barcode lookup, the
/// `server_version` of a GRN conflict (RCV-3), and the payload of a pulled PO change.
public struct PurchaseOrder: Sendable, Hashable, Codable {
    public enum Status: String, Sendable, Hashable, Codable, CaseIterable {
        case open = "OPEN"
        case partiallyReceived = "PARTIALLY_RECEIVED"
        case received = "RECEIVED"
    }

    /// `PO-YYYY-NNNNN`.
    public var poNumber: String
    public var vendorID: String
    public var status: Status
    public var lines: [PurchaseOrderLine]
    /// Server time of the last change, with UTC offset; lets the operator see how fresh a cached
    /// order is.
    public var updatedAt: String

    public init(poNumber: String, vendorID: String, status: Status, lines: [PurchaseOrderLine], updatedAt: String) {
        self.poNumber = poNumber
        self.vendorID = vendorID
        self.status = status
        self.lines = lines
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case type
        case poNumber = "po_number"
        case vendorID = "vendor_id"
        case status, lines
        case updatedAt = "updated_at"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try LookupType.require(.purchaseOrder, in: container, forKey: .type)
        poNumber = try container.decode(String.self, forKey: .poNumber)
        vendorID = try container.decode(String.self, forKey: .vendorID)
        status = try container.decode(Status.self, forKey: .status)
        lines = try container.decode([PurchaseOrderLine].self, forKey: .lines)
        updatedAt = try container.decode(String.self, forKey: .updatedAt)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(LookupType.purchaseOrder, forKey: .type)
        try container.encode(poNumber, forKey: .poNumber)
        try container.encode(vendorID, forKey: .vendorID)
        try container.encode(status, forKey: .status)
        try container.encode(lines, forKey: .lines)
        try container.encode(updatedAt, forKey: .updatedAt)
    }
}
