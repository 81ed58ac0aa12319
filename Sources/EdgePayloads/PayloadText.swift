/// Text helpers shared by the recognizers.
enum PayloadText {
    /// Strips one leading byte-order mark (some QR generators emit one) and surrounding space, tab,
    /// CR and LF (generators append line ends). Nothing else is removed.
    static func prepare(_ text: String) -> String {
        var scalars = Substring(text).unicodeScalars
        if scalars.first == "\u{FEFF}" { scalars = scalars.dropFirst() }
        let isSpace: (Unicode.Scalar) -> Bool = { $0.isASCII && ASCII.isWhitespace(UInt8($0.value)) }
        guard let first = scalars.firstIndex(where: { !isSpace($0) }),
              let last = scalars.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(scalars[first...last])
    }

    /// Attacker text echoed in a reason: quoted, at most `limit` characters, and everything outside
    /// printable ASCII escaped as `\u{..}` so a reason can never carry control characters, bidi
    /// overrides or look-alike letters to a screen or a log.
    static func quoted(_ text: String, limit: Int = 40) -> String {
        var out = "\""
        var count = 0
        for scalar in text.unicodeScalars {
            if count == limit {
                out += "…"
                break
            }
            count += 1
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case " "..."~": out.unicodeScalars.append(scalar)
            default: out += "\\u{\(hex(scalar.value, width: 4))}"
            }
        }
        return out + "\""
    }

    /// A reason as a sentence for a screen: the first letter upper-cased, a full stop added.
    static func sentence(_ reason: String) -> String {
        guard let first = reason.first else { return reason }
        return first.uppercased() + reason.dropFirst() + (reason.hasSuffix(".") ? "" : ".")
    }

    static func hex(_ value: UInt32, width: Int) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
