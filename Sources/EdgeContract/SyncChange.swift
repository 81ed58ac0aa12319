/// One change the server has for the station (SYN-9): a pulled notification, a PO update, an
/// enrollment status change. `kind` says which; `payload` is applied by the capability owning it.
public struct SyncChange: Sendable, Hashable, Codable {
    public var id: String
    public var stream: String
    public var kind: String
    public var changedAt: String
    public var payload: JSONValue

    public init(id: String, stream: String, kind: String, changedAt: String, payload: JSONValue) {
        self.id = id
        self.stream = stream
        self.kind = kind
        self.changedAt = changedAt
        self.payload = payload
    }

    enum CodingKeys: String, CodingKey {
        case id, stream, kind
        case changedAt = "changed_at"
        case payload
    }
}
