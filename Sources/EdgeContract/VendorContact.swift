/// The person to call about a vendor's deliveries.
public struct VendorContact: Sendable, Hashable, Codable {
    public var name: String
    public var phone: String
    public var email: String

    public init(name: String, phone: String, email: String) {
        self.name = name
        self.phone = phone
        self.email = email
    }

    enum CodingKeys: String, CodingKey {
        case name, phone, email
    }
}
