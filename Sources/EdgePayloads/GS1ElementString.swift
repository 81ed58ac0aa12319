/// A GS1 element string (SCN-13): the application identifiers and values a GS1-128 or GS1 QR
/// code carries, in the order the symbol carries them, each checked against GS1's rules.
///
/// Made by `parse`, which refuses invalid data with a `GS1Error` naming the AI and the reason.
/// Pure: no I/O; the reference year for two-digit years is the caller's.
public struct GS1ElementString: Sendable, Hashable, CustomStringConvertible {
    public let elements: [GS1Element]

    /// Longest element data parsed (bytes). GS1-128 holds at most 48 data characters and a GS1
    /// QR or DataMatrix label a few hundred in practice; anything longer is refused unread.
    public static let maxBytes = 512
    /// Most elements one string may hold. Real labels carry a handful; the bound keeps hostile
    /// input (a long run of two-character elements) from building a long list.
    public static let maxElements = 64

    public init(elements: [GS1Element]) { self.elements = elements }

    /// `(01)09506000134352(17)201225(10)ABC123`: GS1's human-readable interpretation.
    public var humanReadable: String { elements.map(\.humanReadable).joined() }

    public var description: String { humanReadable }

    /// The first element with this AI.
    public func element(_ ai: String) -> GS1Element? { elements.first { $0.ai == ai } }

    public func value(_ ai: String) -> String? { element(ai)?.value }

    /// (01) GTIN: the trade item itself, 14 digits.
    public var gtin: String? { value("01") }
    /// (02) CONTENT: the GTIN of the trade items a logistic unit holds (counted by (37)).
    public var contentGTIN: String? { value("02") }
    /// (00) SSCC: the logistic unit (pallet, parcel).
    public var sscc: String? { value("00") }
    /// (10) BATCH/LOT.
    public var lot: String? { value("10") }
    /// (21) SERIAL.
    public var serial: String? { value("21") }
    /// (17) USE BY or EXPIRY.
    public var expiry: GS1Date? { element("17")?.date }
    /// (15) BEST BEFORE or BEST BY.
    public var bestBefore: GS1Date? { element("15")?.date }
    /// (400) ORDER NUMBER: the customer's purchase order.
    public var orderNumber: String? { value("400") }
    /// How many items the scan stands for: (30) VAR. COUNT of a trade item, or (37) COUNT of
    /// the trade items in a logistic unit. At most 8 digits, so it always fits.
    public var count: Int? { (value("30") ?? value("37")).flatMap { Int($0) } }

    /// Element data as a GS1-128 or GS1 QR code carries it once its leading FNC1 is gone (what
    /// zbar hands over for a symbol it marks GS1): values back to back, each variable-length
    /// value not at the end followed by GS (0x1D), the FNC1 separator.
    public static func parse(elementData bytes: [UInt8], referenceYear: Int) throws(GS1Error) -> GS1ElementString {
        var parser = GS1Parser(referenceYear: referenceYear)
        try parser.parseElementData(bytes[...])
        return GS1ElementString(elements: parser.elements)
    }

    /// The human-readable form, `(01)09506000134352(17)201225`, as typed or printed under a
    /// barcode (spaces around the parentheses are ignored).
    public static func parse(humanReadable text: String, referenceYear: Int) throws(GS1Error) -> GS1ElementString {
        var parser = GS1Parser(referenceYear: referenceYear)
        try parser.parseHumanReadable(Array(text.utf8)[...])
        return GS1ElementString(elements: parser.elements)
    }

    /// Any form a station meets: with a GS1 symbology identifier in front (`]C1` GS1-128, `]Q3`
    /// GS1 QR, `]d2` GS1 DataMatrix, `]e0` GS1 DataBar, `]J1` GS1 DotCode: what scanners set to
    /// send AIM identifiers type), the human-readable form, or bare element data.
    public static func parse(_ text: String, referenceYear: Int) throws(GS1Error) -> GS1ElementString {
        var parser = GS1Parser(referenceYear: referenceYear)
        try parser.parseAnyForm(Array(text.utf8)[...])
        return GS1ElementString(elements: parser.elements)
    }

    /// The AIM symbology identifiers that announce GS1 element data.
    public static let symbologyIdentifiers = ["]C1", "]Q3", "]d2", "]e0", "]J1"]
}
