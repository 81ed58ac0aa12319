/// Characters that make a payload untrustworthy as shown (SCN-10): control characters (NUL
/// included), invisible format characters (zero-width, bidi overrides), line/paragraph separators,
/// and U+FFFD (bytes an upstream decoder could not read). Tab, CR and LF are not taint: JSON cards
/// may be pretty-printed. A leading byte-order mark is not taint either (`PayloadText.prepare`).
struct PayloadTaint: Sendable, Equatable {
    let scalar: Unicode.Scalar
    /// 1-based position among the payload's Unicode scalars.
    let position: Int
    /// How many tainted scalars the payload holds in all.
    let count: Int

    static func isTaint(_ scalar: Unicode.Scalar) -> Bool {
        if scalar == "\t" || scalar == "\n" || scalar == "\r" { return false }
        if scalar.value == 0xFFFD { return true }
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }

    /// The first taint in `text`, skipping a leading byte-order mark.
    static func first(in text: String) -> PayloadTaint? {
        var found: (Unicode.Scalar, Int)?
        var count = 0
        for (offset, scalar) in text.unicodeScalars.enumerated() {
            if offset == 0 && scalar == "\u{FEFF}" { continue }
            guard isTaint(scalar) else { continue }
            count += 1
            if found == nil { found = (scalar, offset + 1) }
        }
        guard let (scalar, position) = found else { return nil }
        return PayloadTaint(scalar: scalar, position: position, count: count)
    }

    static func removingAll(from text: String) -> String {
        var out = String.UnicodeScalarView()
        for (offset, scalar) in text.unicodeScalars.enumerated() where !isTaint(scalar) || (offset == 0 && scalar == "\u{FEFF}") {
            out.append(scalar)
        }
        return String(out)
    }

    var codePoint: String { "U+\(PayloadText.hex(scalar.value, width: 4))" }

    var kind: String {
        if scalar.value == 0xFFFD { return "the replacement character \(codePoint) (bytes that could not be decoded)" }
        switch scalar.properties.generalCategory {
        case .format: return "the invisible formatting character \(codePoint)"
        case .lineSeparator, .paragraphSeparator: return "the separator character \(codePoint)"
        default: return "the control character \(codePoint)"
        }
    }

    /// User-facing reason for a whole payload.
    var reason: String {
        let more = count > 1 ? " (and \(count - 1) more)" : ""
        return "the payload contains \(kind) at position \(position)\(more)"
    }
}
