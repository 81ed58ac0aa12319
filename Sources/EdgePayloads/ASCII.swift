/// Byte-level ASCII predicates. Shape checks run on UTF-8 bytes so that look-alike Unicode
/// letters and digits (Cyrillic "А", full-width "１") never pass as their ASCII twins.
enum ASCII {
    static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
    static func isUpper(_ b: UInt8) -> Bool { b >= 0x41 && b <= 0x5A }
    static func isLower(_ b: UInt8) -> Bool { b >= 0x61 && b <= 0x7A }
    static func isLetter(_ b: UInt8) -> Bool { isUpper(b) || isLower(b) }
    static func isAlphanumeric(_ b: UInt8) -> Bool { isDigit(b) || isLetter(b) }
    static func isHexDigit(_ b: UInt8) -> Bool { isDigit(b) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66) }
    /// Space, tab, CR, LF: the whitespace JSON allows and label generators append.
    static func isWhitespace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
    static func uppercased(_ b: UInt8) -> UInt8 { isLower(b) ? b - 0x20 : b }
    static func lowercased(_ b: UInt8) -> UInt8 { isUpper(b) ? b + 0x20 : b }

    static func string(_ bytes: some Sequence<UInt8>) -> String { String(decoding: Array(bytes), as: UTF8.self) }

    /// Case-insensitive ASCII prefix test.
    static func hasPrefix(_ bytes: [UInt8], caseInsensitive prefix: String) -> Bool {
        let p = Array(prefix.utf8)
        guard bytes.count >= p.count else { return false }
        for i in 0..<p.count where uppercased(bytes[i]) != uppercased(p[i]) { return false }
        return true
    }
}
