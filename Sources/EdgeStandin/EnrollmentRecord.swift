import EdgeContract

/// An enrollment the stand-in's portal knows, reached through its linking code.
struct EnrollmentRecord: Sendable, Hashable {
    var id: String
    var patientID: String
    /// Unformatted (ENR-2 normalised).
    var linkingCode: String
    var sponsorURL: String
    var sponsor: SponsorDisplayConfig
    var studyStartRequired: Bool
    var status: EnrollmentStatusResponse.Status
    var updatedAt: String
    /// An expired code is refused like an unknown one (ENR-5: one answer).
    var expired: Bool
    /// The station that linked the code. Decision: the same station may link again (its first
    /// answer may have been lost, ENR-6 retries), another station may not (the code is used).
    var linkedDevice: String?
}
