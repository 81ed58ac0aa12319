/// The answer to an EAN-13 lookup when the backend knows the product (RCV-6).
public struct ProductInfo: Sendable, Hashable, Codable {
    /// 13 digits, check digit verified by the server too.
    public var gtin: String
    public var name: String

    public init(gtin: String, name: String) {
        self.gtin = gtin
        self.name = name
    }

    enum CodingKeys: String, CodingKey {
        case type, gtin, name
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try LookupType.require(.product, in: container, forKey: .type)
        gtin = try container.decode(String.self, forKey: .gtin)
        name = try container.decode(String.self, forKey: .name)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(LookupType.product, forKey: .type)
        try container.encode(gtin, forKey: .gtin)
        try container.encode(name, forKey: .name)
    }
}
