import EdgeContract

/// `edge lookup vendor|material|product --json` (models/lookup.schema.json): one card.
public struct LookupDocument: Sendable, Encodable {
    /// vendor, material or product.
    public var kind: String
    public var vendor: VendorInfo?
    public var material: MaterialInfo?
    /// product: the GTIN (check digit verified) and whether the backend has data for it.
    public var gtin: String?
    public var gtinKind: String?
    public var found: Bool
    public var product: ProductInfo?
    public var message: String

    enum CodingKeys: String, CodingKey {
        case kind, vendor, material, gtin
        case gtinKind = "gtin_kind"
        case found, product, message
    }

    public init(vendor: VendorInfo) {
        kind = "vendor"
        self.vendor = vendor
        found = true
        message = "\(vendor.name), rating \(GRNValidator.text(vendor.rating)) of 5"
    }

    public init(material: MaterialInfo) {
        kind = "material"
        self.material = material
        found = true
        message = "\(material.code) \(material.description): \(GRNValidator.text(material.stockLevel)) \(material.unit) in stock, price \(material.priceTrend.direction.rawValue)"
    }

    public init(product lookup: ProductLookup) {
        kind = "product"
        gtin = lookup.gtin
        gtinKind = lookup.kind
        found = lookup.product != nil
        product = lookup.product
        message = lookup.message
    }

    public var text: [String] {
        var out = [message]
        if let vendor {
            out.append("contact: \(vendor.contact.name), \(vendor.contact.phone), \(vendor.contact.email)")
            out += vendor.recentOrders.map(Self.line)
        }
        if let material {
            let points = material.priceTrend.points.map { "\($0.date) \(GRNValidator.text($0.unitPrice)) \(material.priceTrend.currency)" }
            out.append("prices: " + points.joined(separator: ", "))
            out += material.recentOrders.map(Self.line)
        }
        if let gtin { out.append("GTIN \(gtin) (\(gtinKind ?? "gtin")), check digit verified") }
        return out
    }

    static func line(_ order: RecentOrder) -> String {
        "  \(order.poNumber)  \(order.orderedAt)  \(GRNValidator.text(order.quantity)) \(order.unit)  \(order.status.rawValue)"
    }
}
