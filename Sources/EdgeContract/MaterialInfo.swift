/// The answer to a material barcode lookup (RCV-5).
public struct MaterialInfo: Sendable, Hashable, Codable {
    /// `MAT-...`, as scanned.
    public var code: String
    public var description: String
    public var stockLevel: Double
    public var unit: String
    public var recentOrders: [RecentOrder]
    public var priceTrend: PriceTrend

    public init(code: String, description: String, stockLevel: Double, unit: String, recentOrders: [RecentOrder], priceTrend: PriceTrend) {
        self.code = code
        self.description = description
        self.stockLevel = stockLevel
        self.unit = unit
        self.recentOrders = recentOrders
        self.priceTrend = priceTrend
    }

    enum CodingKeys: String, CodingKey {
        case type, code, description
        case stockLevel = "stock_level"
        case unit
        case recentOrders = "recent_orders"
        case priceTrend = "price_trend"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try LookupType.require(.material, in: container, forKey: .type)
        code = try container.decode(String.self, forKey: .code)
        description = try container.decode(String.self, forKey: .description)
        stockLevel = try container.decode(Double.self, forKey: .stockLevel)
        unit = try container.decode(String.self, forKey: .unit)
        recentOrders = try container.decode([RecentOrder].self, forKey: .recentOrders)
        priceTrend = try container.decode(PriceTrend.self, forKey: .priceTrend)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(LookupType.material, forKey: .type)
        try container.encode(code, forKey: .code)
        try container.encode(description, forKey: .description)
        try container.encode(stockLevel, forKey: .stockLevel)
        try container.encode(unit, forKey: .unit)
        try container.encode(recentOrders, forKey: .recentOrders)
        try container.encode(priceTrend, forKey: .priceTrend)
    }
}
