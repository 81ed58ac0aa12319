import EdgeContract
import FoundationEssentials

/// One enrollment the station holds (ENR-11, ENR-12): a sponsor/patient link with its state, what
/// the portal told about it, and its whole history. Tokens are not here: they are in the vault
/// under `accessSecret` / `refreshSecret` (ENR-9); the code only as `maskedCode` (ENR-8).
public struct Enrollment: Sendable, Hashable {
    /// The station's own id, stable across re-enrollment (the server's id may change).
    public let id: Int64
    public var lifecycle: EnrollmentLifecycle
    public var sponsorID: String
    /// `AB-***-*****`: the sponsor prefix only.
    public var maskedCode: String
    /// The sponsor backend the code was validated with (masked by design, ENR-4).
    public var backendURL: String
    public var serverEnrollmentID: String?
    public var patientID: String?
    public var sponsorURL: String?
    public var sponsor: SponsorDisplayConfig?
    public var studyStartRequired: Bool?
    public var createdAt: Double
    public var updatedAt: Double

    public var state: EnrollmentState { lifecycle.state }

    /// The vault names of the tokens, which are also the outbox credential of the enrollment's
    /// entries (the sender asks the vault for the token by this name).
    public var accessSecret: String { Self.accessSecret(id) }
    public var refreshSecret: String { "enrollment.\(id).refresh" }
    /// Every entry of the enrollment goes to one stream: FIFO for its history (SYN-3).
    public var stream: String { "enrollment:\(id)" }

    public static let credentialPrefix = "enrollment."
    static func accessSecret(_ id: Int64) -> String { "enrollment.\(id).access" }

    /// The enrollment a credential name belongs to, if it is one of ours.
    public static func id(ofCredential credential: String) -> Int64? {
        let parts = credential.split(separator: ".")
        guard parts.count == 3, parts[0] == "enrollment", parts[2] == "access" || parts[2] == "refresh" else { return nil }
        return Int64(parts[1])
    }
}
