/// The payload classes edge knows without configuration (SCN-6), by their reported names.
///
/// Configured classes (`PayloadClassRule`) may not reuse these names.
public enum BuiltInPayloadClass: String, Sendable, CaseIterable, Hashable {
    case linkingCode = "linking-code"
    case purchaseOrder = "purchase-order"
    case vendor = "vendor"
    case material = "material"
    case product = "product"
    case unknown = "unknown"
}
