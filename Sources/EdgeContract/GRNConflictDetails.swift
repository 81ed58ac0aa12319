/// `error.details` of a 409 CONFLICT answer to a GRN confirmation (RCV-3): the order as the
/// server has it (which wins) and a sentence for the operator saying what changed.
public struct GRNConflictDetails: Sendable, Hashable, Codable {
    public var serverVersion: PurchaseOrder
    public var changes: String

    public init(serverVersion: PurchaseOrder, changes: String) {
        self.serverVersion = serverVersion
        self.changes = changes
    }

    enum CodingKeys: String, CodingKey {
        case serverVersion = "server_version"
        case changes
    }
}
