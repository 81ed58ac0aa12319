/// Turns a QR code's payload bytes into text (SCN-4).
///
/// zbar in binary mode hands over the bytes but not the ECI designators, so the character set is
/// inferred, in this order: UTF-8 (strictly valid, which plain ASCII also is); Shift_JIS when
/// the bytes are valid Shift_JIS and look Japanese (the QR standard's kanji mode and many
/// Japanese encoders use it; decoded as CP932, which keeps 0x5C a backslash as Japanese
/// encoders mean it, where strict Shift_JIS turns it into a yen sign); otherwise ISO-8859-1, the QR default for byte mode. The heuristic
/// follows the approach of zxing's character-set guesser, written anew here.
public enum QRTextDecoder {
    public struct Decoded: Sendable, Equatable {
        public let text: String
        public let encoding: String
        public init(text: String, encoding: String) { self.text = text; self.encoding = encoding }
    }

    public static func decode(_ bytes: [UInt8]) -> Decoded {
        if let utf8 = String(validating: bytes, as: UTF8.self) {
            // A UTF-8 BOM is a marker, not text.
            let text = utf8.hasPrefix("\u{FEFF}") ? String(utf8.dropFirst()) : utf8
            return Decoded(text: text, encoding: "utf-8")
        }
        let sjis = ShiftJISStats(bytes)
        if sjis.valid && sjis.looksJapanese, let text = Iconv.toUTF8(bytes, from: "CP932") ?? Iconv.toUTF8(bytes, from: "SHIFT_JIS") {
            return Decoded(text: text, encoding: "shift_jis")
        }
        // ISO-8859-1 maps every byte to the code point of the same value: it cannot fail.
        let latin1 = String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        return Decoded(text: latin1, encoding: "iso-8859-1")
    }
}

/// Structure statistics of a byte string read as Shift_JIS.
struct ShiftJISStats {
    var valid = true
    var doubleByteChars = 0
    var katakanaChars = 0
    var maxDoubleByteRun = 0
    var maxKatakanaRun = 0
    var length = 0
    /// Bytes 0x80-0x9F: C1 controls in ISO-8859-1, so Latin-1 text practically never has them.
    var c1Controls = 0
    /// Bytes that Latin-1 renders as symbols rather than letters (0xA0-0xBF, ×, ÷).
    var latinSymbols = 0

    init(_ bytes: [UInt8]) {
        length = bytes.count
        var i = 0
        var doubleRun = 0, kataRun = 0
        while i < bytes.count {
            let b = bytes[i]
            if b >= 0x80 && b <= 0x9F { c1Controls += 1 }
            if b >= 0xA0 && (b < 0xC0 || b == 0xD7 || b == 0xF7) { latinSymbols += 1 }
            if b < 0x80 {
                doubleRun = 0; kataRun = 0
                i += 1
            } else if b >= 0xA1 && b <= 0xDF {  // half-width katakana
                katakanaChars += 1
                kataRun += 1; doubleRun = 0
                maxKatakanaRun = max(maxKatakanaRun, kataRun)
                i += 1
            } else if (b >= 0x81 && b <= 0x9F) || (b >= 0xE0 && b <= 0xEF) {
                guard i + 1 < bytes.count else { valid = false; return }
                let t = bytes[i + 1]
                guard t >= 0x40 && t <= 0xFC && t != 0x7F else { valid = false; return }
                doubleByteChars += 1
                doubleRun += 1; kataRun = 0
                maxDoubleByteRun = max(maxDoubleByteRun, doubleRun)
                i += 2
            } else {
                valid = false
                return
            }
        }
    }

    /// Decides between Shift_JIS and ISO-8859-1 when both are possible: a run of three or more
    /// Japanese characters is strong evidence; so are C1 control bytes, which Latin-1 text does
    /// not contain; a lone pair of katakana, or many bytes Latin-1 would show as symbols rather
    /// than letters, tips the balance too.
    var looksJapanese: Bool {
        guard valid, doubleByteChars + katakanaChars > 0 else { return false }
        if maxDoubleByteRun >= 3 || maxKatakanaRun >= 3 { return true }
        if c1Controls > 0 { return true }
        return (maxKatakanaRun == 2 && katakanaChars == 2) || latinSymbols * 10 >= length
    }
}
