/// The payload classes edge knows without configuration (SCN-6), by their reported names.
///
/// Configured classes (`PayloadClassRule`) may not reuse these names.
public enum BuiltInPayloadClass: String, Sendable, CaseIterable, Hashable {
    case linkingCode = "linking-code"
    case purchaseOrder = "purchase-order"
    case vendor = "vendor"
    case material = "material"
    case product = "product"
    /// A valid GS1 element string that names no trade item: an SSCC pallet label, a shipment's
    /// data (`GS1Recognizer`); one with a GTIN is a `product`.
    case gs1 = "gs1"
    case unknown = "unknown"
}
