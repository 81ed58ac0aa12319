/// ENR-2 input normalisation. Produces the string `LinkingCodeValidator` checks; it never decides
/// validity itself, so look-alikes and stray characters survive to be reported precisely.
public enum LinkingCodeNormalizer {
    /// "10 plus 2 dashes" (ENR-2). A typed field takes no more than this.
    public static let maxTypedLength = 12

    public static func normalize(_ input: String, source: LinkingCodeInputSource) -> String {
        switch source {
        case .typed: return normalizeTyped(input)
        case .scanned: return normalizeScanned(input)
        }
    }

    /// Typed: surrounding whitespace is not "typed content", so it is trimmed before the 12-character
    /// cap (which mirrors an input field's max length: later characters are simply not taken).
    /// Dashes include the typographic ones keyboards auto-substitute (U+2010-2015, U+2212), and any
    /// whitespace counts as a space. Upper-casing is ASCII-only so "ß" or Turkish "i" cannot turn into
    /// valid-looking letters; everything else is kept for the validator to reject.
    static func normalizeTyped(_ input: String) -> String {
        let trimmed = input.trimmingWhitespace()
        var out = String.UnicodeScalarView()
        for character in trimmed.prefix(maxTypedLength) {
            for scalar in character.unicodeScalars {
                if isDash(scalar) || scalar.properties.isWhitespace { continue }
                out.append(asciiUppercased(scalar))
            }
        }
        return String(out)
    }

    /// Scanned or pasted: "keeps only the valid alphanumerics" is read as ASCII letters and digits,
    /// look-alikes included, so a printed code with an "O" is reported as a look-alike problem rather
    /// than silently shortened. Dashes, spaces, punctuation and non-ASCII are dropped.
    /// Control characters are dropped too; the classifier refuses them before it gets here.
    static func normalizeScanned(_ input: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in input.unicodeScalars where scalar.isASCII && ASCII.isAlphanumeric(UInt8(scalar.value)) {
            out.append(asciiUppercased(scalar))
        }
        return String(out)
    }

    private static func isDash(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "-" || (0x2010...0x2015).contains(scalar.value) || scalar.value == 0x2212
    }

    private static func asciiUppercased(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        guard scalar.isASCII, ASCII.isLower(UInt8(scalar.value)) else { return scalar }
        return Unicode.Scalar(UInt8(scalar.value) - 0x20)
    }
}

extension String {
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[first...last])
    }
}
