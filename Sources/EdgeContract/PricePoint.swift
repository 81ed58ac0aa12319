/// One price on one day. A calendar date (`YYYY-MM-DD`), not a timestamp: prices are per day.
public struct PricePoint: Sendable, Hashable, Codable {
    public var date: String
    public var unitPrice: Double

    public init(date: String, unitPrice: Double) {
        self.date = date
        self.unitPrice = unitPrice
    }

    enum CodingKeys: String, CodingKey {
        case date
        case unitPrice = "unit_price"
    }
}
