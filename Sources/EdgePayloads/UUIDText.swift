/// Canonical textual UUIDs: 8-4-4-4-12 hexadecimal digits. No braces, no `urn:uuid:`, no missing
/// hyphens: vendor cards are machine-generated, so anything else is a damaged or forged card.
/// Either letter case is accepted; the lower-case form is reported.
enum UUIDText {
    /// The nil UUID is a placeholder, never a real vendor or tenant.
    static let nilUUID = "00000000-0000-0000-0000-000000000000"

    /// Lower-cased canonical form, or nil when `text` is not 8-4-4-4-12 hex.
    static func canonical(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return nil }
        for (i, byte) in bytes.enumerated() {
            let wantsHyphen = i == 8 || i == 13 || i == 18 || i == 23
            if wantsHyphen ? byte != UInt8(ascii: "-") : !ASCII.isHexDigit(byte) { return nil }
        }
        return ASCII.string(bytes.map(ASCII.lowercased))
    }
}
