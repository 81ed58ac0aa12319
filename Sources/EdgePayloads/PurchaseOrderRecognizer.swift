/// `purchase-order` (SCN-6, RCV-1): `PO-YYYY-NNNNN` on Code 128 / Code 39.
///
/// Candidate: text starting with "PO" (any case) followed by '-', '_', a space or a digit. That is
/// specific enough that such text is a (possibly damaged) PO label, and it runs before linking-code
/// detection, so `PO-2024-00001` is never taken for a linking code (a "PO" prefix could not be a
/// valid one anyway: O is a look-alike).
/// Decisions, checked in this order (the first problem is reported):
/// - On QR or EAN-13 it is still reported as `purchase-order`, invalid, because PO labels are
///   printed as Code 128 / Code 39 (RCV-1) and the kiosk must not look it up.
/// - Upper case only (Code 39 has no lower case; the backend looks the value up verbatim).
/// - Year: 4 digits, 2000...2099 (no clock here, so no "future year" check).
/// - Number: 5 digits, 00001...99999 (00000 is not an order number).
enum PurchaseOrderRecognizer {
    static let years = 2000...2099

    static func isCandidate(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 3, ASCII.hasPrefix(bytes, caseInsensitive: "PO") else { return false }
        let next = bytes[2]
        return next == UInt8(ascii: "-") || next == UInt8(ascii: "_") || next == UInt8(ascii: " ") || ASCII.isDigit(next)
    }

    static func classify(_ text: String, symbology: Symbology) -> Classification {
        if symbology != .code128 && symbology != .code39 {
            return .invalid(.purchaseOrder,
                            "purchase-order labels are printed as Code 128 or Code 39; this is \(symbology.withArticle)")
        }
        let bytes = Array(text.utf8)
        if bytes.contains(where: ASCII.isLower) {
            return .invalid(.purchaseOrder, "purchase-order numbers are upper case, like PO-2024-00001")
        }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "PO" else {
            return .invalid(.purchaseOrder, "expected PO-YYYY-NNNNN, like PO-2024-00001; got \(PayloadText.quoted(text))")
        }
        let year = String(parts[1])
        let number = String(parts[2])
        guard year.utf8.count == 4, year.utf8.allSatisfy(ASCII.isDigit), let yearValue = Int(year) else {
            return .invalid(.purchaseOrder, "the year \(PayloadText.quoted(year)) must be 4 digits (PO-YYYY-NNNNN)")
        }
        guard years.contains(yearValue) else {
            return .invalid(.purchaseOrder, "the year \(year) is outside \(years.lowerBound)-\(years.upperBound)")
        }
        guard number.utf8.count == 5, number.utf8.allSatisfy(ASCII.isDigit) else {
            return .invalid(.purchaseOrder, "the order number \(PayloadText.quoted(number)) must be 5 digits (PO-YYYY-NNNNN)")
        }
        guard number != "00000" else {
            return .invalid(.purchaseOrder, "the order number 00000 is not used; numbers start at 00001")
        }
        return .valid(.purchaseOrder, ["year": year, "number": number])
    }
}
