import EdgeContract
import EdgeStore
import FoundationEssentials

/// An enrollment as the kiosk API, `edge enroll --json` and `edge enrollments --json` print it
/// (models/enrollments.schema.json): no code beyond its masked form, no token (ENR-8, ENR-9).
public struct EnrollmentDocument: Sendable, Encodable {
    public struct Step: Sendable, Encodable {
        public let from: String
        public let to: String
        public let at: String
        public let cause: String
    }

    public struct List: Sendable, Encodable {
        public let enrollments: [EnrollmentDocument]
        public init(enrollments: [EnrollmentDocument]) { self.enrollments = enrollments }
    }

    public let id: Int64
    public let state: String
    public let sponsorID: String
    public let maskedCode: String
    public let serverEnrollmentID: String?
    public let patientID: String?
    public let sponsorURL: String?
    public let sponsor: SponsorDisplayConfig?
    public let studyStartRequired: Bool?
    public let createdAt: String
    public let updatedAt: String
    public let history: [Step]

    public init(_ e: Enrollment) {
        id = e.id
        state = e.state.rawValue
        sponsorID = e.sponsorID
        maskedCode = e.maskedCode
        serverEnrollmentID = e.serverEnrollmentID
        patientID = e.patientID
        sponsorURL = e.sponsorURL
        sponsor = e.sponsor
        studyStartRequired = e.studyStartRequired
        createdAt = LocalTimestamp.string(epochSeconds: e.createdAt)
        updatedAt = LocalTimestamp.string(epochSeconds: e.updatedAt)
        history = e.lifecycle.history.map { Step(from: $0.from.rawValue, to: $0.to.rawValue, at: LocalTimestamp.string(epochSeconds: $0.at), cause: $0.cause) }
    }

    enum CodingKeys: String, CodingKey {
        case id, state, sponsor, history
        case sponsorID = "sponsor_id"
        case maskedCode = "masked_code"
        case serverEnrollmentID = "server_enrollment_id"
        case patientID = "patient_id"
        case sponsorURL = "sponsor_url"
        case studyStartRequired = "study_start_required"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }
}
