/// The symbologies a payload can arrive on (SCN-3).
///
/// `EdgeScanning.BarcodeFormat` maps onto this 1:1 by raw value; the payload module keeps its own
/// enum so it can be used (and tested) without zbar.
public enum Symbology: String, Sendable, CaseIterable, Codable, Hashable {
    case qr
    case code128
    case code39
    case ean13
    /// Italian Pharmacode on Code 39 bars; off unless a station asks for it.
    case code32

    /// Human name used in reasons, e.g. "QR code", "Code 128 barcode".
    public var displayName: String {
        switch self {
        case .qr: return "QR code"
        case .code128: return "Code 128 barcode"
        case .code39: return "Code 39 barcode"
        case .ean13: return "EAN-13 barcode"
        case .code32: return "Code 32 barcode"
        }
    }

    /// "a QR code" / "an EAN-13 barcode", for sentences such as "this is a QR code".
    var withArticle: String {
        self == .ean13 ? "an \(displayName)" : "a \(displayName)"
    }
}
