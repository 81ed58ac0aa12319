/// A point in the coordinates of the image handed to the reader (before any pass transformed it).
public struct ScanPoint: Sendable, Equatable, Hashable, Codable {
    public var x: Int
    public var y: Int
    public init(x: Int, y: Int) { self.x = x; self.y = y }
}

/// Orientation of a symbol as zbar reports it (`zbar_orientation_t`), mapped back to the input image.
public enum SymbolOrientation: String, Sendable, Codable {
    case up, right, down, left, unknown
}

/// One decoded code, as a value (SCN-5).
public struct ScanResult: Sendable, Equatable {
    public let format: BarcodeFormat
    /// The text, always valid UTF-8 (decoded by edge for QR; see `QRTextDecoder`).
    public let text: String
    /// The raw payload bytes as the symbol carried them.
    public let bytes: [UInt8]
    /// Which character set the text was decoded from (QR only; "ascii" for 1D).
    public let encoding: String
    /// Corner/scan points in input-image coordinates.
    public let points: [ScanPoint]
    public let orientation: SymbolOrientation
    /// zbar's quality figure (higher is better; for 1D the number of scan lines that agreed).
    public let quality: Int
    /// The pass that found it.
    public let pass: ScanPass
    /// EAN-2/EAN-5 add-on digits when add-ons are enabled and present.
    public let addOn: String?
    /// A QR code that is one symbol of a structured-append sequence whose other symbols were not
    /// in the image: `text` is this symbol's share of the message, not the whole message.
    public let partialSequence: Bool
    /// The symbol is marked GS1 (symbology identifier ]C1 for GS1-128, ]Q3 for GS1 QR): FNC1 in
    /// first position, so `text` is GS1 element data with GS (0x1D) as the separator (SCN-13).
    public let gs1: Bool

    /// True when `bytes` are not exactly the UTF-8 of `text` (so consumers should keep the bytes).
    public var bytesDifferFromText: Bool { Array(text.utf8) != bytes }

    public init(format: BarcodeFormat, text: String, bytes: [UInt8], encoding: String, points: [ScanPoint],
                orientation: SymbolOrientation, quality: Int, pass: ScanPass, addOn: String?, partialSequence: Bool = false,
                gs1: Bool = false) {
        self.format = format
        self.text = text
        self.bytes = bytes
        self.encoding = encoding
        self.points = points
        self.orientation = orientation
        self.quality = quality
        self.pass = pass
        self.addOn = addOn
        self.partialSequence = partialSequence
        self.gs1 = gs1
    }
}
