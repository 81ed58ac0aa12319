import CZbar

/// The symbologies `edge` reads (SCN-3): the four of `standard`, and Code 32, which is off
/// unless asked for (`Code32` says why).
public enum BarcodeFormat: String, Sendable, CaseIterable, Codable, Hashable {
    case qr
    case code128
    case code39
    case ean13
    case code32

    /// What a station and `edge scan` read when nobody says otherwise.
    public static let standard: Set<BarcodeFormat> = [.qr, .code128, .code39, .ean13]

    /// Is this a linear (1D) symbology? Rotation passes only help these (zbar finds QR at any angle).
    public var isLinear: Bool { self != .qr }

    /// Parses a comma list such as `qr,code128` (SCN-3 `--symbology`).
    public static func parseList(_ list: String) throws(ScanError) -> Set<BarcodeFormat> {
        var formats = Set<BarcodeFormat>()
        for item in list.split(separator: ",", omittingEmptySubsequences: false) {
            let name = String(item.filter { $0 != " " && $0 != "\t" }).lowercased()
            guard let format = BarcodeFormat(rawValue: name) else {
                throw ScanError(.unknownSymbology, "unknown symbology '\(name)'; choose from \(allCases.map(\.rawValue).joined(separator: ","))", context: ["value": name])
            }
            formats.insert(format)
        }
        if formats.isEmpty {
            throw ScanError(.unknownSymbology, "no symbology given", context: [:])
        }
        return formats
    }

    /// zbar's symbol types that make up this format.
    var zbarTypes: [zbar_symbol_type_t] {
        switch self {
        case .qr: return [ZBAR_QRCODE]
        case .code128: return [ZBAR_CODE128]
        // Code 32 is printed in Code 39; `BarcodeReader` tells the two apart from the characters.
        case .code39, .code32: return [ZBAR_CODE39]
        // UPC-A is reported by zbar as EAN-13 with a leading 0 when UPC-A itself is not enabled.
        case .ean13: return [ZBAR_EAN13]
        }
    }

    init?(zbarType: zbar_symbol_type_t) {
        switch zbarType {
        case ZBAR_QRCODE: self = .qr
        case ZBAR_CODE128: self = .code128
        case ZBAR_CODE39: self = .code39
        case ZBAR_EAN13, ZBAR_UPCA, ZBAR_ISBN13, ZBAR_COMPOSITE: self = .ean13
        default: return nil
        }
    }
}
