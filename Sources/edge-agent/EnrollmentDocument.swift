import EdgeCommandLine
import EdgeEnrollment
import Foundation

extension EnrollmentDocument {
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
