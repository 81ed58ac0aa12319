/// A sponsor's brand colours as `#RRGGBB`.
public struct SponsorColors: Sendable, Hashable, Codable {
    public var primary: String
    public var secondary: String

    public init(primary: String, secondary: String) {
        self.primary = primary
        self.secondary = secondary
    }

    enum CodingKeys: String, CodingKey {
        case primary, secondary
    }
}
