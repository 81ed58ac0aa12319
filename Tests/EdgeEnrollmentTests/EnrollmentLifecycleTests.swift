import EdgeEnrollment
import Testing

/// ENR-11: the state machine as a pure value.
struct EnrollmentLifecycleTests {
    @Test func everyListedTransitionIsAllowedAndNothingElse() throws {
        // STUDY_START_PENDING -> NOT_PARTICIPATING: a revocation met while pending (issue #28, see
        // `EnrollmentState.successors`).
        let allowed: Set<[EnrollmentState]> = [
            [.personalUse, .linkingPending], [.linkingPending, .studyStartPending], [.linkingPending, .personalUse],
            [.studyStartPending, .enrolled], [.studyStartPending, .notParticipating], [.enrolled, .notParticipating],
            [.notParticipating, .linkingPending],
        ]
        for from in EnrollmentState.allCases {
            for to in EnrollmentState.allCases {
                #expect(from.canMove(to: to, reenrolling: false) == allowed.contains([from, to]), "\(from) -> \(to)")
            }
        }
    }

    @Test func personalUseNeverJumpsToEnrolled() {
        var lifecycle = EnrollmentLifecycle()
        #expect(throws: EnrollmentError.self) { try lifecycle.move(to: .enrolled, at: 1, cause: "test") }
        #expect(lifecycle.state == .personalUse)
        #expect(lifecycle.history.isEmpty)
        do {
            try lifecycle.move(to: .enrolled, at: 1, cause: "test")
        } catch {
            #expect(error.code == .invalidTransition)
            #expect(error.context["from"] == "PERSONAL_USE")
        }
    }

    @Test func aFirstEnrollmentCannotSkipStudyStartButAReenrollmentMay() throws {
        var first = EnrollmentLifecycle()
        try first.move(to: .linkingPending, at: 1, cause: "started")
        #expect(throws: EnrollmentError.self) { try first.move(to: .enrolled, at: 2, cause: "approval holds") }

        var again = EnrollmentLifecycle()
        try again.move(to: .linkingPending, at: 1, cause: "started")
        try again.move(to: .studyStartPending, at: 2, cause: "validated")
        try again.move(to: .enrolled, at: 3, cause: "approved")
        try again.move(to: .notParticipating, at: 4, cause: "revoked")
        try again.move(to: .linkingPending, at: 5, cause: "new code")
        #expect(again.isReenrolling)
        try again.move(to: .enrolled, at: 6, cause: "approval holds")
        #expect(again.history.map(\.to) == [.linkingPending, .studyStartPending, .enrolled, .notParticipating, .linkingPending, .enrolled])
        #expect(again.history.map(\.at) == [1, 2, 3, 4, 5, 6])
    }
}
