import EdgeContract

/// The body of `POST /_standin/changes`: a change for the pull log; id and time are assigned when
/// absent.
struct ChangeRequest: Sendable, Hashable, Codable {
    var id: String?
    var stream: String
    var kind: String
    var changedAt: String?
    var payload: JSONValue

    enum CodingKeys: String, CodingKey {
        case id, stream, kind
        case changedAt = "changed_at"
        case payload
    }
}
