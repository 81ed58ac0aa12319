/// The data segments of a QR code's corrected codewords (ISO/IEC 18004 §7.4): numeric,
/// alphanumeric, byte, Kanji, Hanzi (GB/T 18284, mode 1101), ECI, FNC1 and structured append.
///
/// Text: segments whose character set the symbol names (Kanji is Shift_JIS, Hanzi GB 2312, and
/// bytes after an ECI designator) are decoded in that set; byte segments with no ECI are decoded
/// the way zbar's bytes are (`QRTextDecoder`: UTF-8, else Japanese Shift_JIS, else ISO-8859-1),
/// so the same code reads the same whichever decoder finished it.
enum QRSegments {
    /// ECI designators edge decodes: iconv's name and the name reported in `encoding`.
    static func charset(eci: Int) -> (iconv: String, name: String)? {
        switch eci {
        case 0, 2: return ("CP437", "cp437")
        case 1, 3: return ("ISO-8859-1", "iso-8859-1")
        case 4...13, 15...18: return ("ISO-8859-\(eci - 2)", "iso-8859-\(eci - 2)")
        case 20: return ("CP932", "shift_jis")
        case 21...23: return ("CP125\(eci - 21)", "windows-125\(eci - 21)")
        case 24: return ("CP1256", "windows-1256")
        case 25: return ("UTF-16BE", "utf-16be")
        case 26: return ("UTF-8", "utf-8")
        case 27, 170: return ("ASCII", "ascii")
        case 28: return ("BIG5", "big5")
        case 29: return ("GB18030", "gb18030")
        case 30: return ("EUC-KR", "euc-kr")
        default: return nil
        }
    }

    static let alphanumeric = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:".utf8)

    /// One run of payload bytes in one character set (nil: not named by the symbol).
    private struct Run {
        var bytes: [UInt8]
        var charset: (iconv: String, name: String)?
    }

    /// The content of `data` for a code of `version`; nil when the bit stream is malformed or
    /// names a character set edge cannot decode.
    static func parse(_ data: [UInt8], version: Int) -> QRModuleDecoder.Content? {
        var reader = BitReader(data)
        let sizeClass = version <= 9 ? 0 : version <= 26 ? 1 : 2
        var runs: [Run] = []
        var eci: (iconv: String, name: String)?
        var fnc1 = false
        // Only FNC1 in first position marks GS1 data; in second position it is AIM's (industry) mode.
        var gs1 = false
        var structuredAppend = false
        func append(_ bytes: [UInt8], _ charset: (iconv: String, name: String)?) {
            if let last = runs.last, last.charset?.iconv == charset?.iconv {
                runs[runs.count - 1].bytes += bytes
            } else {
                runs.append(Run(bytes: bytes, charset: charset))
            }
        }
        while reader.remaining >= 4 {
            guard let mode = reader.read(4) else { return nil }
            switch mode {
            case 0:  // terminator
                reader.skipAll()
            case 1:  // numeric: three digits in 10 bits, then two in 7 or one in 4
                guard var count = reader.read([10, 12, 14][sizeClass]) else { return nil }
                var digits: [UInt8] = []
                while count > 0 {
                    let take = min(3, count)
                    guard let value = reader.read([0, 4, 7, 10][take]), value < [1, 10, 100, 1000][take] else { return nil }
                    var chunk = [UInt8](repeating: 0, count: take), v = value
                    for i in stride(from: take - 1, through: 0, by: -1) { chunk[i] = UInt8(ascii: "0") + UInt8(v % 10); v /= 10 }
                    digits += chunk
                    count -= take
                }
                append(digits, eci)
            case 2:  // alphanumeric: two characters in 11 bits, a last one in 6
                guard var count = reader.read([9, 11, 13][sizeClass]) else { return nil }
                var text: [UInt8] = []
                while count > 0 {
                    if count >= 2 {
                        guard let value = reader.read(11), value < 45 * 45 else { return nil }
                        text += [alphanumeric[value / 45], alphanumeric[value % 45]]
                        count -= 2
                    } else {
                        guard let value = reader.read(6), value < 45 else { return nil }
                        text.append(alphanumeric[value])
                        count -= 1
                    }
                }
                // In FNC1 (GS1) mode "%" stands for the group separator and "%%" for "%".
                if fnc1 { text = gs1Percent(text) }
                append(text, eci)
            case 4:  // byte
                guard let count = reader.read([8, 16, 16][sizeClass]), reader.remaining >= count * 8 else { return nil }
                var bytes: [UInt8] = []
                bytes.reserveCapacity(count)
                for _ in 0..<count { guard let b = reader.read(8) else { return nil }; bytes.append(UInt8(b)) }
                append(bytes, eci)
            case 8, 13:  // Kanji (Shift_JIS) or Hanzi (GB 2312), 13 bits a character
                if mode == 13 {
                    // Subset 1 is GB 2312; the other subsets are not in use.
                    guard reader.read(4) == 1 else { return nil }
                }
                guard let count = reader.read([8, 10, 12][sizeClass]), reader.remaining >= count * 13 else { return nil }
                var bytes: [UInt8] = []
                for _ in 0..<count {
                    guard let value = reader.read(13) else { return nil }
                    var pair: Int
                    if mode == 8 {
                        pair = (value / 0xC0) << 8 | (value % 0xC0)
                        pair += pair < 0x1F00 ? 0x8140 : 0xC140
                    } else {
                        pair = (value / 0x60) << 8 | (value % 0x60)
                        pair += pair < 0x0A00 ? 0xA1A1 : 0xA6A1
                    }
                    bytes += [UInt8(truncatingIfNeeded: pair >> 8), UInt8(truncatingIfNeeded: pair)]
                }
                append(bytes, mode == 8 ? ("CP932", "shift_jis") : ("GB2312", "gb2312"))
            case 7:  // ECI designator: 1, 2 or 3 bytes by its leading bits
                guard let first = reader.read(8) else { return nil }
                let value: Int?
                if first & 0x80 == 0 {
                    value = first
                } else if first & 0xC0 == 0x80 {
                    value = reader.read(8).map { (first & 0x3F) << 8 | $0 }
                } else if first & 0xE0 == 0xC0 {
                    value = reader.read(16).map { (first & 0x1F) << 16 | $0 }
                } else {
                    value = nil
                }
                guard let value, let named = charset(eci: value) else { return nil }
                eci = named
            case 3:  // structured append: index, total and parity; this symbol is one share
                guard reader.read(16) != nil else { return nil }
                structuredAppend = true
            case 5:  // FNC1 in first position (GS1)
                fnc1 = true
                gs1 = true
            case 9:  // FNC1 in second position, with its application indicator
                guard reader.read(8) != nil else { return nil }
                fnc1 = true
            default:
                return nil
            }
        }
        return content(runs, structuredAppend: structuredAppend, gs1: gs1)
    }

    private static func gs1Percent(_ text: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        while i < text.count {
            if text[i] == UInt8(ascii: "%") {
                if i + 1 < text.count && text[i + 1] == UInt8(ascii: "%") {
                    out.append(UInt8(ascii: "%"))
                    i += 2
                    continue
                }
                out.append(0x1D)
            } else {
                out.append(text[i])
            }
            i += 1
        }
        return out
    }

    private static func content(_ runs: [Run], structuredAppend: Bool, gs1: Bool) -> QRModuleDecoder.Content? {
        let bytes = runs.flatMap(\.bytes)
        if runs.allSatisfy({ $0.charset == nil }) {
            let decoded = QRTextDecoder.decode(bytes)
            return .init(bytes: bytes, text: decoded.text, encoding: decoded.encoding, structuredAppend: structuredAppend, gs1: gs1)
        }
        var text = ""
        var names: [String] = []
        for run in runs {
            if let charset = run.charset {
                guard let part = Iconv.toUTF8(run.bytes, from: charset.iconv) else { return nil }
                text += part
                names.append(charset.name)
            } else {
                let decoded = QRTextDecoder.decode(run.bytes)
                text += decoded.text
                names.append(decoded.encoding)
            }
        }
        // ASCII runs read the same in every set: only the others decide between one name and "mixed".
        let distinct = Set(zip(runs, names).filter { !$0.0.bytes.allSatisfy { $0 < 0x80 } }.map(\.1))
        let encoding = distinct.count > 1 ? "mixed" : distinct.first ?? names.first ?? "ascii"
        return .init(bytes: bytes, text: text, encoding: encoding, structuredAppend: structuredAppend, gs1: gs1)
    }
}

/// Reads big-endian bit fields from a byte string.
private struct BitReader {
    let bytes: [UInt8]
    var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var remaining: Int { bytes.count * 8 - position }

    mutating func read(_ count: Int) -> Int? {
        guard count >= 0, count <= remaining else { return nil }
        var value = 0
        for _ in 0..<count {
            let bit = bytes[position >> 3] >> (7 - UInt8(position & 7)) & 1
            value = value << 1 | Int(bit)
            position += 1
        }
        return value
    }

    mutating func skipAll() { position = bytes.count * 8 }
}
