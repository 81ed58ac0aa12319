import EdgeContract
import EdgeEnrollment
import EdgeStore
import Foundation

/// An enrollment as `edge enroll --json` and `edge enrollments --json` print it
/// (models/enrollments.schema.json): no code beyond its masked form, no token (ENR-8, ENR-9).
struct EnrollmentDocument: Encodable {
    struct Step: Encodable {
        let from: String
        let to: String
        let at: String
        let cause: String
    }

    struct List: Encodable {
        let enrollments: [EnrollmentDocument]
    }

    let id: Int64
    let state: String
    let sponsorID: String
    let maskedCode: String
    let serverEnrollmentID: String?
    let patientID: String?
    let sponsorURL: String?
    let sponsor: SponsorDisplayConfig?
    let studyStartRequired: Bool?
    let createdAt: String
    let updatedAt: String
    let history: [Step]

    init(_ e: Enrollment) {
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

    /// What the coordinator reads; server-supplied text is escaped (control and format characters).
    func printText() {
        Output.stdout("enrollment \(id): \(state)  code \(maskedCode)  sponsor \(Output.printable(sponsorID))")
        if let sponsor {
            Output.stdout("  \(Output.printable(sponsor.name))  \(Output.printable(sponsor.phone))  \(Output.printable(sponsor.email))")
        }
        if let patientID { Output.stdout("  patient \(Output.printable(patientID))") }
        switch state {
        case "STUDY_START_PENDING":
            Output.stdout("  waiting for the investigator's Study Start approval; the agent asks every minute (`edge enroll check \(id)` asks now)")
        case "NOT_PARTICIPATING":
            Output.stdout("  revoked: data is kept and sent after `edge enroll NEW-CODE --reenroll \(id)` with the same patient's new code")
        case "LINKING_PENDING":
            Output.stdout("  validation did not finish; `edge enroll cancel \(id)` returns it to PERSONAL_USE")
        default:
            break
        }
        for step in history {
            Output.stdout("  \(step.at)  \(step.from) -> \(step.to)  \(Output.printable(step.cause))")
        }
    }
}
