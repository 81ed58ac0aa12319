/// What a payload is (SCN-6): the class name, whether it is a well-formed member of that class,
/// and, only when it is not, a precise user-facing reason.
///
/// `details` carry the parsed fields with snake_case keys (`formatted`, `prefix`, `sponsor_id`,
/// `year`, `number`, `vendor_id`, `tenant_id`, `material_code`, `gtin`, `kind`, ...). They are
/// filled for valid results; invalid results carry at most context that helps explain the reason,
/// never values a consumer could mistake for validated data.
public struct Classification: Sendable, Equatable, Hashable {
    public let className: String
    public let valid: Bool
    public let reason: String?
    public let details: [String: String]
    /// The GS1 element string a valid GS1-128 or GS1 QR payload carries (SCN-13), whatever its
    /// class (`product` with a GTIN, else `gs1`); nil for every other payload.
    public let gs1: GS1ElementString?

    public init(className: String, valid: Bool, reason: String?, details: [String: String] = [:], gs1: GS1ElementString? = nil) {
        self.className = className
        self.valid = valid
        self.reason = reason
        self.details = details
        self.gs1 = gs1
    }

    static func valid(_ cls: BuiltInPayloadClass, _ details: [String: String] = [:]) -> Classification {
        Classification(className: cls.rawValue, valid: true, reason: nil, details: details)
    }

    static func invalid(_ cls: BuiltInPayloadClass, _ reason: String, _ details: [String: String] = [:]) -> Classification {
        Classification(className: cls.rawValue, valid: false, reason: reason, details: details)
    }

    /// `unknown` is not an error: the code is simply not one edge has a meaning for.
    static let unknown = Classification(className: BuiltInPayloadClass.unknown.rawValue, valid: true, reason: nil)
}
