/// Text from payloads and servers made safe to show to an operator: on a terminal (`edge`), in
/// the kiosk's pages (after HTML escaping) and in the database. One set of rules for every screen.
public enum DisplayText {
    /// Control characters (escape sequences, NUL, CR) are shown as \u{..} so a code cannot rewrite
    /// the operator's terminal or fake extra lines. Invisible format characters (Unicode Cf: the
    /// bidi embeddings, overrides and isolates U+202A–U+202E and U+2066–U+2069, the marks
    /// U+200E/U+200F/U+061C, zero-width U+200B, BOM U+FEFF) and the line/paragraph separators
    /// U+2028/U+2029 are escaped the same way (issue #16): shown raw they reorder or hide what the
    /// operator reads ("gpj.exe" shown as "exe.jpg"). Backslashes and quotes are escaped so the
    /// escapes cannot be forged.
    ///
    /// `quoting: false` leaves backslashes and quotes alone, for screens where the text sits in
    /// its own element (the kiosk's pages) and quotes are the payload's own (vendor-card JSON).
    public static func escaped(_ s: String, quoting: Bool = true) -> String {
        var out = ""
        for scalar in s.unicodeScalars {
            if isShown(scalar) {
                if quoting, scalar == "\\" || scalar == "\"" { out += "\\" }
                out.unicodeScalars.append(scalar)
            } else {
                out += "\\u{\(String(scalar.value, radix: 16))}"
            }
        }
        return out
    }

    /// Server text for one line of a screen or a database column: controls become spaces, at
    /// most `limit` characters.
    public static func oneLine(_ text: String, limit: Int = 300) -> String {
        String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7f ? " " : Character($0) }.prefix(limit))
    }

    private static func isShown(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x20..<0x7F: return true
        case 0..<0xA0: return false
        default:
            switch scalar.properties.generalCategory {
            case .format, .lineSeparator, .paragraphSeparator, .control: return false
            default: return true
            }
        }
    }
}
