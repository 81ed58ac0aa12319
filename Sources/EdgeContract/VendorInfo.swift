/// The answer to `POST /api/mobile/scan/qr` for a vendor card (RCV-4). A card of another tenant
/// is answered 403 WRONG_TENANT instead.
public struct VendorInfo: Sendable, Hashable, Codable {
    public var vendorID: String
    public var tenantID: String
    public var name: String
    public var contact: VendorContact
    /// 0 to 5.
    public var rating: Double
    public var recentOrders: [RecentOrder]

    public init(vendorID: String, tenantID: String, name: String, contact: VendorContact, rating: Double, recentOrders: [RecentOrder]) {
        self.vendorID = vendorID
        self.tenantID = tenantID
        self.name = name
        self.contact = contact
        self.rating = rating
        self.recentOrders = recentOrders
    }

    enum CodingKeys: String, CodingKey {
        case type
        case vendorID = "vendor_id"
        case tenantID = "tenant_id"
        case name, contact, rating
        case recentOrders = "recent_orders"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try LookupType.require(.vendor, in: container, forKey: .type)
        vendorID = try container.decode(String.self, forKey: .vendorID)
        tenantID = try container.decode(String.self, forKey: .tenantID)
        name = try container.decode(String.self, forKey: .name)
        contact = try container.decode(VendorContact.self, forKey: .contact)
        rating = try container.decode(Double.self, forKey: .rating)
        recentOrders = try container.decode([RecentOrder].self, forKey: .recentOrders)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(LookupType.vendor, forKey: .type)
        try container.encode(vendorID, forKey: .vendorID)
        try container.encode(tenantID, forKey: .tenantID)
        try container.encode(name, forKey: .name)
        try container.encode(contact, forKey: .contact)
        try container.encode(rating, forKey: .rating)
        try container.encode(recentOrders, forKey: .recentOrders)
    }
}
