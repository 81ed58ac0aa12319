/// The body of `POST /_standin/approve`.
struct ApproveRequest: Sendable, Hashable, Codable {
    var enrollmentID: String

    enum CodingKeys: String, CodingKey {
        case enrollmentID = "enrollment_id"
    }
}
