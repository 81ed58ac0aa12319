/// ASCII-only lower-casing for header names (RFC 9110 field names are ASCII tokens), without
/// Foundation's locale-aware case mapping.
public enum ASCIILowercase {
    public static func string(_ text: String) -> String {
        // Most names arrive lower-case already (HTTP/2 requires it): returned as they are,
        // without a copy (issue #31: every request's and answer's headers pass here).
        guard text.utf8.contains(where: { (0x41...0x5A).contains($0) }) else { return text }
        return String(decoding: text.utf8.map { byte in (0x41...0x5A).contains(byte) ? byte + 0x20 : byte }, as: UTF8.self)
    }

    /// Case-insensitive comparison of two ASCII header names.
    public static func equal(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.count == rhs.utf8.count && string(lhs) == string(rhs)
    }
}
