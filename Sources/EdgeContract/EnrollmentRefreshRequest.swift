/// `POST /api/enrollment/refresh` (ENR-10: one refresh before revoking). The refresh token
/// travels as the bearer token, in the same header as every other credential, so the one rule
/// "never log Authorization" covers it; the body names the enrollment it is for.
public struct EnrollmentRefreshRequest: Sendable, Hashable, Codable {
    public var enrollmentID: String

    public init(enrollmentID: String) {
        self.enrollmentID = enrollmentID
    }

    enum CodingKeys: String, CodingKey {
        case enrollmentID = "enrollment_id"
    }
}
