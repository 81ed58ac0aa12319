import EdgeContract

import EdgePayloads

/// An EAN-13 or GS1 product (RCV-6, SCN-13): the GTIN with its verified check digit, and the
/// backend's product data when it has any; "no product data" is an answer, not a failure.
public struct ProductLookup: Sendable, Hashable {
    public var gtin: String
    /// `gtin`, `isbn`, `in-store` or `gtin-14` (EdgePayloads' product kinds).
    public var kind: String
    public var product: ProductInfo?
    /// The GS1 data the label carried with the GTIN (lot, expiry, serial, count), for a GS1-128
    /// or GS1 QR label; nil for an EAN-13.
    public var gs1: GS1ElementString?

    public init(gtin: String, kind: String, product: ProductInfo?, gs1: GS1ElementString? = nil) {
        self.gtin = gtin
        self.kind = kind
        self.product = product
        self.gs1 = gs1
    }

    public var message: String {
        product.map { "\($0.name) (GTIN \(gtin))" } ?? "No product data for GTIN \(gtin): the backend has none for it."
    }
}
