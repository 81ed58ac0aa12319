/// Where an enrollment is in its lifecycle (ENR-11). Raw values are the spec's names, which are
/// also what the database, `edge enrollments --json` and the local UI show.
public enum EnrollmentState: String, Sendable, Hashable, Codable, CaseIterable {
    case personalUse = "PERSONAL_USE"
    case linkingPending = "LINKING_PENDING"
    case studyStartPending = "STUDY_START_PENDING"
    case enrolled = "ENROLLED"
    case notParticipating = "NOT_PARTICIPATING"

    /// ENR-11's transitions, and no others (PERSONAL_USE never jumps to ENROLLED).
    public var successors: Set<EnrollmentState> {
        switch self {
        case .personalUse: [.linkingPending]
        case .linkingPending: [.studyStartPending, .personalUse]
        case .studyStartPending: [.enrolled]
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
