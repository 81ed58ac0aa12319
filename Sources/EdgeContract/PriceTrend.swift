/// A material's recent unit prices (RCV-5), oldest first, with the server's reading of where
/// they are going so the station need not compute it.
public struct PriceTrend: Sendable, Hashable, Codable {
    public enum Direction: String, Sendable, Hashable, Codable, CaseIterable {
        case rising, falling, stable
    }

    /// ISO 4217.
    public var currency: String
    public var direction: Direction
    public var points: [PricePoint]

    public init(currency: String, direction: Direction, points: [PricePoint]) {
        self.currency = currency
        self.direction = direction
        self.points = points
    }

    enum CodingKeys: String, CodingKey {
        case currency, direction, points
    }
}
