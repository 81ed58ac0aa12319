/// GS1 element strings (SCN-13) as payload classes.
///
/// Which payloads are GS1: those the scanner marks (zbar's GS1 modifier: a GS1-128 or GS1 QR
/// code, FNC1 in first position), and text that announces itself, i.e. typed or wedge input
/// starting with a GS1 symbology identifier (`]C1`, `]Q3`, ...) or in the human-readable form
/// `(01)...`. Bare digits that merely could be element data are not: on a Code 128 without
/// FNC1 they are just a number.
///
/// Classes (decision, RCV-6 and RCV-9):
/// - A valid string with a GTIN, (01) or else (02) (the items a logistic unit holds), is a
///   `product`: the dock shows and counts the trade item it names, like an EAN-13 of it. Its
///   `gtin` detail is the 13-digit form when the GTIN-14 starts with 0 (so a GS1-128 and the
///   item's EAN-13 or UPC-A name the same product), else the 14 digits with kind `gtin-14` (a
///   case or other packaging level). The GS1 data rides along: details `lot`, `expiry`,
///   `best_before`, `serial`, `count` ((30) or (37)), `order_number`, `customer_part_number`
///   when present, and the whole `GS1ElementString` in `Classification.gs1`.
/// - A valid string without a GTIN (an SSCC pallet label, a shipment's data) is `gs1`.
/// - GS1 never makes a `material`: material labels are the `MAT-` text the backend looks up
///   (RCV-5); a (241) customer part number is reported as a detail for receiving to match.
/// - An invalid string is reported as the class it was trying to be, with the parser's reason:
///   `product` when a GTIN was read or is the AI at fault, else `gs1`. Invalid results carry
///   only `ai` (the AI at fault) as a detail and no `gs1` value.
enum GS1Recognizer {
    /// Does `text` (already trimmed) announce GS1 data itself?
    static func isCandidate(_ bytes: [UInt8]) -> Bool {
        for identifier in GS1ElementString.symbologyIdentifiers where bytes.starts(with: identifier.utf8) { return true }
        guard bytes.first == UInt8(ascii: "(") else { return false }
        let digits = bytes.dropFirst().prefix(5).prefix(while: ASCII.isDigit)
        return (2...4).contains(digits.count) && bytes.count > digits.count + 1 && bytes[digits.count + 1] == UInt8(ascii: ")")
    }

    /// `marked`: the symbol said GS1, so `text` is element data even without an identifier.
    static func classify(_ text: String, marked: Bool, referenceYear: Int) -> Classification {
        var parser = GS1Parser(referenceYear: referenceYear)
        let bytes = Array(text.utf8)[...]
        do throws(GS1Error) {
            if marked {
                try parser.parseElementData(bytes)
            } else {
                try parser.parseAnyForm(bytes)
            }
        } catch {
            let trade = parser.elements.contains { $0.ai == "01" || $0.ai == "02" } || error.ai == "01" || error.ai == "02"
            return .invalid(trade ? .product : .gs1, error.message, error.ai.map { ["ai": $0] } ?? [:])
        }
        let string = GS1ElementString(elements: parser.elements)
        var details = dataDetails(string)
        guard let gtin = string.gtin ?? string.contentGTIN else {
            return Classification(className: BuiltInPayloadClass.gs1.rawValue, valid: true, reason: nil, details: details, gs1: string)
        }
        if gtin.hasPrefix("0") {
            let gtin13 = String(gtin.dropFirst())
            details["gtin"] = gtin13
            details["kind"] = ProductRecognizer.kind(gtin13)
        } else {
            details["gtin"] = gtin
            details["kind"] = "gtin-14"
        }
        return Classification(className: BuiltInPayloadClass.product.rawValue, valid: true, reason: nil, details: details, gs1: string)
    }

    /// The GS1 data receiving uses, as snake_case details.
    static func dataDetails(_ string: GS1ElementString) -> [String: String] {
        var details: [String: String] = [:]
        details["sscc"] = string.sscc
        details["lot"] = string.lot
        details["serial"] = string.serial
        details["expiry"] = string.expiry?.iso
        details["best_before"] = string.bestBefore?.iso
        details["count"] = string.count.map(String.init)
        details["order_number"] = string.orderNumber
        details["customer_part_number"] = string.value("241")
        return details
    }
}
