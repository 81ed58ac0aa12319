/// One element of a GS1 element string: an application identifier and its value, checked
/// against GS1's rules for that AI (`GS1Parser`).
public struct GS1Element: Sendable, Hashable {
    /// The AI's digits, e.g. `01`, `3103`.
    public let ai: String
    /// GS1's data title for the AI, e.g. `GTIN`, `BATCH/LOT`, `USE BY or EXPIRY`.
    public let title: String
    /// The value as carried (for dates the YYMMDD digits, for measures the digits without the
    /// decimal point).
    public let value: String
    /// The date the value starts with, for date AIs (11-17, 4324-4326, 7003, 7006, 7007, 7011).
    public let date: GS1Date?
    /// For AIs whose last digit places a decimal point (31nn-36nn, 39nn): how many decimals.
    public let decimalPlaces: Int?

    public init(ai: String, title: String, value: String, date: GS1Date? = nil, decimalPlaces: Int? = nil) {
        self.ai = ai
        self.title = title
        self.value = value
        self.date = date
        self.decimalPlaces = decimalPlaces
    }

    /// The value with its implied decimal point, leading zeros dropped: `3103` `001500` is
    /// `1.500`; nil for AIs without one. For 391n/393n the currency code (first 3 digits) is
    /// left out.
    public var decimal: String? {
        guard let places = decimalPlaces else { return nil }
        var digits = Array(value.utf8)
        if ai.hasPrefix("391") || ai.hasPrefix("393") { digits = Array(digits.dropFirst(3)) }
        while digits.count <= places { digits.insert(UInt8(ascii: "0"), at: 0) }
        var whole = digits.prefix(digits.count - places)
        while whole.count > 1, whole.first == UInt8(ascii: "0") { whole = whole.dropFirst() }
        let fraction = digits.suffix(places)
        return ASCII.string(whole) + (places > 0 ? "." + ASCII.string(fraction) : "")
    }

    /// `(17)201225`.
    public var humanReadable: String { "(\(ai))\(value)" }
}
