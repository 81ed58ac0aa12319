/// `product` (SCN-6, RCV-6): every EAN-13 payload. The symbology itself marks the class, so a bad
/// EAN-13 is a bad product, never `unknown`.
///
/// Decisions:
/// - Exactly 13 ASCII digits. EAN-2/EAN-5 add-ons are reported by the scanner separately, so
///   "9781234567897 12345" is refused with a reason that says so rather than silently cut.
/// - 13 digits on Code 128 / Code 39 / QR are not products: bare numbers are too common there.
/// - Kind: 978/979 -> `isbn`; first two digits 20-29 -> `in-store` (restricted circulation /
///   variable measure); otherwise `gtin`. UPC-A arrives as EAN-13 with a leading 0 -> `gtin`.
enum ProductRecognizer {
    static func classify(_ bytes: [UInt8]) -> Classification {
        let allDigits = bytes.allSatisfy(ASCII.isDigit)
        guard allDigits, bytes.count == 13 else {
            return .invalid(.product, shapeProblem(bytes, allDigits: allDigits))
        }
        let digits = bytes.map { Int($0 - UInt8(ascii: "0")) }
        let expected = checkDigit(digits[0..<12])
        guard digits[12] == expected else {
            return .invalid(.product, "check digit is \(digits[12]), expected \(expected)")
        }
        let gtin = ASCII.string(bytes)
        return .valid(.product, ["gtin": gtin, "kind": kind(gtin)])
    }

    /// GS1 mod-10: from the right, weights 3,1,3,... over the 12 data digits.
    static func checkDigit(_ data: ArraySlice<Int>) -> Int {
        var sum = 0
        for (i, digit) in data.enumerated() { sum += digit * (i % 2 == 0 ? 1 : 3) }
        return (10 - sum % 10) % 10
    }

    static func kind(_ gtin: String) -> String {
        if gtin.hasPrefix("978") || gtin.hasPrefix("979") { return "isbn" }
        if gtin.hasPrefix("2") { return "in-store" }
        return "gtin"
    }

    private static func shapeProblem(_ bytes: [UInt8], allDigits: Bool) -> String {
        if allDigits {
            if bytes.count == 15 || bytes.count == 18 {
                return "an EAN-13 code has 13 digits, this one has \(bytes.count); add-on digits are reported separately"
            }
            return "an EAN-13 code has 13 digits, this one has \(bytes.count)"
        }
        let text = ASCII.string(bytes)
        // "13 digits, a space or dash, then 2 or 5 digits" is a main code with its add-on glued on.
        let parts = text.split(whereSeparator: { $0 == " " || $0 == "-" })
        if parts.count == 2, parts[0].count == 13, parts[1].count == 2 || parts[1].count == 5,
           parts.allSatisfy({ $0.utf8.allSatisfy(ASCII.isDigit) }) {
            return "an EAN-13 code has 13 digits only; add-on digits are reported separately"
        }
        for (offset, scalar) in text.unicodeScalars.enumerated() where !(scalar.isASCII && ASCII.isDigit(UInt8(scalar.value))) {
            return "an EAN-13 code holds only digits; found \(PayloadText.quoted(String(scalar))) at position \(offset + 1)"
        }
        return "an EAN-13 code holds only digits"
    }
}
