/// Code 39 Full ASCII (ISO/IEC 16388 annex): the 43-character symbology writes the other ASCII
/// characters as pairs of a shift character (`$`, `%`, `/`, `+`) and a letter, e.g. `+A` for
/// `a`. zbar returns the symbol characters raw (`12+A+B`); this turns them into the text.
///
/// Decision (issue #15): in `auto`, a read is decoded only when it holds at least one pair and
/// every pair is valid Full ASCII; a read with a shift character that starts no valid pair
/// (`PO-1/2`, a trailing `+`) stays raw. The ambiguity stays: a raw label whose `+`, `$`, `%`
/// or `/` happen to form valid pairs (`12+A` printed as plain Code 39) reads as Full ASCII;
/// a station with such labels sets `raw`. The raw symbol characters stay in `ScanResult.bytes`.
public enum Code39FullASCII {
    public enum Policy: String, Sendable, Equatable, CaseIterable {
        /// Decode when every pair is valid (see above).
        case auto
        /// Never decode: the symbol characters as printed.
        case raw
        /// Always Full ASCII: a read with an invalid pair is not a valid symbol and is dropped.
        case always = "full-ascii"
    }

    /// The decoded bytes, or nil when a shift character starts no valid pair.
    public static func decode(_ raw: some Collection<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var shift: UInt8?
        for byte in raw {
            if let pending = shift {
                guard let value = pair(pending, byte) else { return nil }
                out.append(value)
                shift = nil
            } else if isShift(byte) {
                shift = byte
            } else {
                out.append(byte)
            }
        }
        return shift == nil ? out : nil
    }

    /// Whether `raw` holds any shift character at all (nothing to decode otherwise).
    public static func hasShift(_ raw: some Collection<UInt8>) -> Bool { raw.contains(where: isShift) }

    static func isShift(_ byte: UInt8) -> Bool { byte == UInt8(ascii: "$") || byte == UInt8(ascii: "%") || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "+") }

    /// The table: `$A`-`$Z` SOH-SUB; `%A`-`%E` ESC-US, `%F`-`%J` `;<=>?`, `%K`-`%O` `[\]^_`,
    /// `%P`-`%T` `{|}~` DEL, `%U` NUL, `%V` `@`, `%W` `` ` ``, `%X`-`%Z` DEL; `/A`-`/O` `!`-`/`,
    /// `/Z` `:`; `+A`-`+Z` `a`-`z`.
    static func pair(_ shift: UInt8, _ letter: UInt8) -> UInt8? {
        guard letter >= UInt8(ascii: "A"), letter <= UInt8(ascii: "Z") else { return nil }
        let n = letter - UInt8(ascii: "A")
        switch shift {
        case UInt8(ascii: "$"):
            return n + 1
        case UInt8(ascii: "+"):
            return UInt8(ascii: "a") + n
        case UInt8(ascii: "/"):
            if n <= 14 { return 0x21 + n }
            return letter == UInt8(ascii: "Z") ? UInt8(ascii: ":") : nil
        case UInt8(ascii: "%"):
            switch n {
            case 0...4: return 0x1B + n
            case 5...9: return UInt8(ascii: ";") + (n - 5)
            case 10...14: return UInt8(ascii: "[") + (n - 10)
            case 15...18: return UInt8(ascii: "{") + (n - 15)
            case 19: return 0x7F
            case 20: return 0x00
            case 21: return UInt8(ascii: "@")
            case 22: return UInt8(ascii: "`")
            default: return 0x7F
            }
        default:
            return nil
        }
    }
}
