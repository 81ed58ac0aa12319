/// How the station presents the sponsor of an enrollment (ENR-5): shown to the patient, so it is
/// display text, never used to reach the sponsor's backend (that URL comes from the pattern table).
public struct SponsorDisplayConfig: Sendable, Hashable, Codable {
    public var name: String
    public var phone: String
    public var email: String
    public var colors: SponsorColors

    public init(name: String, phone: String, email: String, colors: SponsorColors) {
        self.name = name
        self.phone = phone
        self.email = email
        self.colors = colors
    }

    enum CodingKeys: String, CodingKey {
        case name, phone, email, colors
    }
}
