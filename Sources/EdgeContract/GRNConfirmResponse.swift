/// The server's receipt for a confirmed GRN.
public struct GRNConfirmResponse: Sendable, Hashable, Codable {
    public enum Status: String, Sendable, Hashable, Codable, CaseIterable {
        case confirmed = "CONFIRMED"
    }

    public var grnID: String
    public var poNumber: String
    public var status: Status

    public init(grnID: String, poNumber: String, status: Status = .confirmed) {
        self.grnID = grnID
        self.poNumber = poNumber
        self.status = status
    }

    enum CodingKeys: String, CodingKey {
        case grnID = "grn_id"
        case poNumber = "po_number"
        case status
    }
}
