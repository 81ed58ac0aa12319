import EdgeContract
import EdgePayloads

/// `edge lookup vendor|material|product --json` (models/lookup.schema.json): one card.
public struct LookupDocument: Sendable, Encodable {
    /// vendor, material or product.
    public var kind: String
    public var vendor: VendorInfo?
    public var material: MaterialInfo?
    /// product: the GTIN (check digit verified) and whether the backend has data for it.
    public var gtin: String?
    public var gtinKind: String?
    /// product from a GS1-128 or GS1 QR label: its data in GS1's human-readable form (SCN-13).
    public var gs1Text: String?
    /// The GS1 data itself (not encoded: `text` words it, `gs1Text` carries it).
    public var gs1: GS1ElementString?
    public var found: Bool
    public var product: ProductInfo?
    public var message: String

    enum CodingKeys: String, CodingKey {
        case kind, vendor, material, gtin
        case gtinKind = "gtin_kind"
        case gs1Text = "gs1_text"
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
        gs1 = lookup.gs1
        gs1Text = lookup.gs1?.humanReadable
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
        if let gs1 { out.append(Self.gs1Line(gs1)) }
        return out
    }

    /// "GS1 (01)...(17)...(10)...: lot ABC123, expiry 2020-12-25": the label's data and what the
    /// dock records from it.
    static func gs1Line(_ gs1: GS1ElementString) -> String {
        var parts: [String] = []
        if let lot = gs1.lot { parts.append("lot \(lot)") }
        if let expiry = gs1.expiry { parts.append("expiry \(expiry.iso)") }
        if let bestBefore = gs1.bestBefore { parts.append("best before \(bestBefore.iso)") }
        if let serial = gs1.serial { parts.append("serial \(serial)") }
        if let count = gs1.count { parts.append("count \(count)") }
        return "GS1 \(gs1.humanReadable)" + (parts.isEmpty ? "" : ": " + parts.joined(separator: ", "))
    }

    static func line(_ order: RecentOrder) -> String {
        "  \(order.poNumber)  \(order.orderedAt)  \(GRNValidator.text(order.quantity)) \(order.unit)  \(order.status.rawValue)"
    }
}
