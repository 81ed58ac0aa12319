import EdgePayloads
import EdgeScanning
import FoundationEssentials

/// One line of `edge scan --json` output; its shape is models/scan-result.schema.json.
public struct ScanRecord: Encodable, Sendable {
    public let file: String
    public let symbology: String
    public let text: String
    public let bytesBase64: String?
    /// Code 39 read as Full ASCII: the symbol characters as printed (`12+A+B` for `12ab`).
    public let rawText: String?
    public let encoding: String
    public let points: [[Int]]
    public let orientation: String
    public let quality: Int
    public let pass: String
    public let addOn: String?
    /// Present (true) only for one symbol of a structured-append sequence read without the rest.
    public let partialSequence: Bool?
    public let payloadClass: String
    public let valid: Bool
    public let reason: String?
    public let details: [String: String]
    /// SCN-13: a valid GS1 element string's elements in the symbol's order, and its
    /// human-readable form `(01)...(17)...`; absent for other codes and for invalid GS1 data
    /// (whose reason says what is wrong).
    public let gs1: [GS1Entry]?
    public let gs1Text: String?
    /// Camera scans only (absent for images): the driver's frame number, and milliseconds from
    /// the frame being dequeued to this record being written (SCN-8).
    public var frame: Int? = nil
    public var latencyMs: Double? = nil

    enum CodingKeys: String, CodingKey {
        case file, symbology, text, encoding, points, orientation, quality, pass, valid, reason, details, gs1
        case gs1Text = "gs1_text"
        case bytesBase64 = "bytes_base64"
        case rawText = "raw_text"
        case addOn = "add_on"
        case partialSequence = "partial_sequence"
        case payloadClass = "class"
        case frame
        case latencyMs = "latency_ms"
    }

    public init(file: String, result: ScanResult, classification: Classification) {
        self.file = file
        symbology = result.format.rawValue
        text = result.text
        // The raw payload only when the text does not carry it byte for byte (SCN-5); Code 39's
        // symbol characters (also Code 32's) are ASCII, so they are shown as text.
        let differs = result.bytesDifferFromText
        let symbolCharacters = result.format == .code39 || result.format == .code32
        rawText = differs && symbolCharacters ? String(decoding: result.bytes, as: UTF8.self) : nil
        bytesBase64 = differs && !symbolCharacters ? Data(result.bytes).base64EncodedString() : nil
        encoding = result.encoding
        points = result.points.map { [$0.x, $0.y] }
        orientation = result.orientation.rawValue
        quality = result.quality
        pass = result.pass.description
        addOn = result.addOn
        partialSequence = result.partialSequence ? true : nil
        payloadClass = classification.className
        valid = classification.valid
        reason = classification.reason
        details = classification.details
        gs1 = classification.gs1.map { $0.elements.map(GS1Entry.init) }
        gs1Text = classification.gs1?.humanReadable
    }

    /// One AI of `gs1`: `{"ai":"17","name":"USE BY or EXPIRY","value":"201225","date":"2020-12-25"}`.
    public struct GS1Entry: Encodable, Sendable {
        let ai: String
        /// GS1's data title.
        let name: String
        let value: String
        /// Date AIs: the ISO date (day 00 read as the month's last day).
        let date: String?
        /// AIs with an implied decimal point (31nn-36nn, 39nn): the value with the point placed.
        let decimal: String?

        init(_ element: GS1Element) {
            ai = element.ai
            name = element.title
            value = element.value
            date = element.date?.iso
            decimal = element.decimal
        }
    }
}
