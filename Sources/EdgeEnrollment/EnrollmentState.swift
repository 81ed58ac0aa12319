/// Where an enrollment is in its lifecycle (ENR-11). Raw values are the spec's names, which are
/// also what the database, `edge enrollments --json` and the local UI show.
public enum EnrollmentState: String, Sendable, Hashable, Codable, CaseIterable {
    case personalUse = "PERSONAL_USE"
    case linkingPending = "LINKING_PENDING"
    case studyStartPending = "STUDY_START_PENDING"
    case enrolled = "ENROLLED"
    case notParticipating = "NOT_PARTICIPATING"

    /// ENR-11's transitions, and no others (PERSONAL_USE never jumps to ENROLLED), plus one:
    /// STUDY_START_PENDING -> NOT_PARTICIPATING on revocation (issue #28 item 3). ENR-10 revokes
    /// on any authenticated call, the approval poll's included, and says the state becomes
    /// NOT_PARTICIPATING; without this step a revocation met while pending erased the tokens but
    /// left the state pending, polled for ever, with neither cancel nor re-enrollment allowed.
    /// From NOT_PARTICIPATING the patient's new code re-enrolls it (ENR-14).
    public var successors: Set<EnrollmentState> {
        switch self {
        case .personalUse: [.linkingPending]
        case .linkingPending: [.studyStartPending, .personalUse]
        case .studyStartPending: [.enrolled, .notParticipating]
        case .enrolled: [.notParticipating]
        case .notParticipating: [.linkingPending]
        }
    }

    /// Re-enrollment may go from LINKING_PENDING straight to ENROLLED when the server says the
    /// earlier Study Start approval still holds (ENR-11); a first enrollment may not.
    public func canMove(to next: EnrollmentState, reenrolling: Bool) -> Bool {
        successors.contains(next) || (reenrolling && self == .linkingPending && next == .enrolled)
    }

    /// Data for the enrollment is sent only in ENROLLED (ENR-13); in every other state what is
    /// queued waits.
    public var sends: Bool { self == .enrolled }
}
