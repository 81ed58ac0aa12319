/// The portal's answer to a valid linking code (ENR-5). Tokens go to the vault and nowhere else
/// (ENR-9); `expiresAt` is informational only, since validity is decided by the server's answers.
public struct EnrollmentLinkResponse: Sendable, Hashable, Codable {
    public var accessToken: String
    public var refreshToken: String?
    /// With UTC offset (SYN-10), when the server states one.
    public var expiresAt: String?
    public var sponsorURL: String
    public var patientID: String
    public var enrollmentID: String
    public var sponsor: SponsorDisplayConfig
    /// True: the enrollment waits for the investigator's approval (STUDY_START_PENDING); false:
    /// an earlier approval still holds and the station goes straight to ENROLLED (ENR-11).
    public var studyStartRequired: Bool

    public init(
        accessToken: String, refreshToken: String? = nil, expiresAt: String? = nil, sponsorURL: String,
        patientID: String, enrollmentID: String, sponsor: SponsorDisplayConfig, studyStartRequired: Bool
    ) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.sponsorURL = sponsorURL
        self.patientID = patientID
        self.enrollmentID = enrollmentID
        self.sponsor = sponsor
        self.studyStartRequired = studyStartRequired
    }

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case refreshToken = "refresh_token"
        case expiresAt = "expires_at"
        case sponsorURL = "sponsor_url"
        case patientID = "patient_id"
        case enrollmentID = "enrollment_id"
        case sponsor
        case studyStartRequired = "study_start_required"
    }
}
