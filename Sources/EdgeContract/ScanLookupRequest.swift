/// `POST /api/mobile/scan/barcode` and `POST /api/mobile/scan/qr`: the decoded text as read. The
/// server classifies it again; the station's own classification only chose the path.
public struct ScanLookupRequest: Sendable, Hashable, Codable {
    /// A barcode's text (`PO-2026-00042`, `MAT-ST-4471`, a GTIN) or a QR's whole text (the vendor
    /// card's JSON, unparsed).
    public var value: String

    public init(value: String) {
        self.value = value
    }

    enum CodingKeys: String, CodingKey {
        case value
    }
}
