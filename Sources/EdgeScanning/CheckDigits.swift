/// Check-digit arithmetic for the 1D symbologies (SCN-5).
public enum CheckDigits {
    /// GTIN-13 check digit of the first 12 digits, or nil when the input is not 12 digits.
    public static func gtin13(_ first12: some Collection<UInt8>) -> UInt8? {
        guard first12.count == 12 else { return nil }
        var sum = 0
        for (i, c) in first12.enumerated() {
            guard c >= 0x30 && c <= 0x39 else { return nil }
            sum += Int(c - 0x30) * (i % 2 == 0 ? 1 : 3)
        }
        return UInt8((10 - sum % 10) % 10) + 0x30
    }

    /// True when `code` is 13 digits with a correct GTIN check digit.
    public static func isValidEAN13(_ code: [UInt8]) -> Bool {
        guard code.count == 13, let expected = gtin13(code.prefix(12)) else { return false }
        return code[12] == expected
    }

    static let code39Alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-. $/+%".utf8)

    /// Code 39 mod-43 check character of `data`, or nil if a character is outside Code 39.
    public static func code39Mod43(_ data: some Collection<UInt8>) -> UInt8? {
        var sum = 0
        for c in data {
            guard let v = code39Alphabet.firstIndex(of: c) else { return nil }
            sum += v
        }
        return code39Alphabet[sum % 43]
    }
}
