import EdgeContract

/// An EAN-13 product (RCV-6): the GTIN with its verified check digit, and the backend's product
/// data when it has any; "no product data" is an answer, not a failure.
public struct ProductLookup: Sendable, Hashable {
    public var gtin: String
    /// `gtin`, `isbn` or `in-store` (EdgePayloads' product kinds).
    public var kind: String
    public var product: ProductInfo?

    public var message: String {
        product.map { "\($0.name) (GTIN \(gtin))" } ?? "No product data for GTIN \(gtin): the backend has none for it."
    }
}
