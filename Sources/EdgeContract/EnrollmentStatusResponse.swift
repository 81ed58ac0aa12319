/// `GET /api/enrollment/status`: where the server has the enrollment the bearer token belongs to
/// (polled every 60 s while STUDY_START_PENDING, ENR-13). A revoked or disconnected enrollment is
/// not a status: it is answered 403 TOKEN_REVOKED / PATIENT_DISCONNECTED like every other call.
public struct EnrollmentStatusResponse: Sendable, Hashable, Codable {
    public enum Status: String, Sendable, Hashable, Codable, CaseIterable {
        case studyStartPending = "STUDY_START_PENDING"
        case enrolled = "ENROLLED"
    }

    public var enrollmentID: String
    public var patientID: String
    public var status: Status
    /// Server time of the last status change, with UTC offset.
    public var updatedAt: String

    public init(enrollmentID: String, patientID: String, status: Status, updatedAt: String) {
        self.enrollmentID = enrollmentID
        self.patientID = patientID
        self.status = status
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case enrollmentID = "enrollment_id"
        case patientID = "patient_id"
        case status
        case updatedAt = "updated_at"
    }
}
