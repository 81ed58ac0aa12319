/// ASCII-only lower-casing for header names (RFC 9110 field names are ASCII tokens), without
/// Foundation's locale-aware case mapping.
enum ASCIILowercase {
    static func string(_ text: String) -> String {
        String(decoding: text.utf8.map { byte in (0x41...0x5A).contains(byte) ? byte + 0x20 : byte }, as: UTF8.self)
    }

    /// Case-insensitive comparison of two ASCII header names.
    static func equal(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.count == rhs.utf8.count && string(lhs) == string(rhs)
    }
}
