/// `material` (SCN-6, RCV-5): `MAT-` followed by the material code, on Code 128 / Code 39.
///
/// Candidate: text starting with "MAT" (any case) followed by '-', '_' or a space; "MATERIAL..."
/// is not a candidate. Decisions, first problem reported:
/// - On QR / EAN-13: `material`, invalid (labels are printed as Code 128 / Code 39).
/// - The prefix must be exactly "MAT-".
/// - Material code: 1...32 characters of A-Z 0-9 - . _ / (what ERP material numbers use and Code 39
///   can carry), starting with a letter or digit. Lower case is refused, not folded: the code is
///   looked up verbatim.
enum MaterialRecognizer {
    static let maxCodeLength = 32

    static func isCandidate(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 4, ASCII.hasPrefix(bytes, caseInsensitive: "MAT") else { return false }
        let next = bytes[3]
        return next == UInt8(ascii: "-") || next == UInt8(ascii: "_") || next == UInt8(ascii: " ")
    }

    static func classify(_ text: String, symbology: Symbology) -> Classification {
        if symbology != .code128 && symbology != .code39 {
            return .invalid(.material, "material labels are printed as Code 128 or Code 39; this is \(symbology.withArticle)")
        }
        guard text.hasPrefix("MAT-") else {
            return .invalid(.material, "expected MAT- followed by the material code; got \(PayloadText.quoted(text))")
        }
        let code = String(text.dropFirst(4))
        let bytes = Array(code.utf8)
        guard !bytes.isEmpty else { return .invalid(.material, "the material code after MAT- is missing") }
        let length = code.unicodeScalars.count
        guard length <= maxCodeLength else {
            return .invalid(.material, "the material code is \(length) characters long; at most \(maxCodeLength) are allowed")
        }
        for (offset, scalar) in code.unicodeScalars.enumerated() where !isAllowed(scalar) {
            let lower = scalar.isASCII && ASCII.isLower(UInt8(scalar.value))
            let what = lower ? "material codes are upper case" : "use A-Z, 0-9, - . _ /"
            return .invalid(.material,
                "the material code contains \(PayloadText.quoted(String(scalar))) at position \(offset + 1); \(what)")
        }
        guard ASCII.isAlphanumeric(bytes[0]) else {
            return .invalid(.material, "the material code must start with a letter or digit")
        }
        return .valid(.material, ["material_code": code])
    }

    private static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        guard scalar.isASCII else { return false }
        let byte = UInt8(scalar.value)
        return ASCII.isUpper(byte) || ASCII.isDigit(byte) || "-._/".utf8.contains(byte)
    }
}
