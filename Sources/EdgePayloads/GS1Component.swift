/// One component of a GS1 AI's data field, as the GS1 Barcode Syntax Dictionary breaks them
/// down: its character set, its length, whether it may be left out (only a last component may),
/// and the content rule it must pass.
///
/// Decision: the rules a receiving dock depends on are checked (check digits, dates, times,
/// piece-of-total, yes/no, fixed markers); the dictionary's other linters (ISO 3166/4217 code
/// lists, IBAN, GS1 company prefixes, coupon layouts, percent-encoding, the alphanumeric check
/// pair of 8013, latitude/longitude ranges) are not: those values are still checked for their
/// character set and length.
struct GS1Component: Sendable, Hashable {
    enum Characters: Sendable, Hashable {
        /// Digits 0-9.
        case numeric
        /// GS1 AI encodable character set 82: `!"%&'()*+,-./0-9:;<=>?A-Z_a-z`.
        case cset82
        /// GS1 AI encodable character set 39: `#-/0-9A-Z`.
        case cset39
        /// File-safe / URI-safe base64: `A-Za-z0-9-_` and `=` padding (8030's signature).
        case cset64

        func allows(_ byte: UInt8) -> Bool {
            switch self {
            case .numeric: return ASCII.isDigit(byte)
            case .cset82: return Self.cset82Table[Int(byte)]
            case .cset39: return ASCII.isDigit(byte) || ASCII.isUpper(byte) || byte == UInt8(ascii: "#") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "/")
            case .cset64: return ASCII.isAlphanumeric(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "=")
            }
        }

        var name: String {
            switch self {
            case .numeric: return "digits only"
            case .cset82: return "GS1 character set 82"
            case .cset39: return "GS1 character set 39 (0-9, A-Z, # - /)"
            case .cset64: return "GS1 character set 64 (base64url)"
            }
        }

        /// 256 entries so any byte indexes it (bytes over 0x7F are never allowed).
        private static let cset82Table: [Bool] = {
            var table = [Bool](repeating: false, count: 256)
            for byte in Array("!\"%&'()*+,-./:;<=>?_".utf8) { table[Int(byte)] = true }
            for byte in UInt8(ascii: "0")...UInt8(ascii: "9") { table[Int(byte)] = true }
            for byte in UInt8(ascii: "A")...UInt8(ascii: "Z") { table[Int(byte)] = true }
            for byte in UInt8(ascii: "a")...UInt8(ascii: "z") { table[Int(byte)] = true }
            return table
        }()
    }

    enum Rule: Sendable, Hashable {
        case none
        /// GS1 mod-10 check digit in the last position (GTIN, SSCC, GLN, ...).
        case checkDigit
        /// YYMMDD; `dayZero`: DD may be 00 (year and month only, GS1 GenSpecs 7.12).
        case date(dayZero: Bool)
        /// YYMMDDHH.
        case dateHour
        /// HHMM.
        case time
        /// MM or MMSS (8008's optional minutes and seconds).
        case minutesSeconds
        /// 0 or 1.
        case yesNo
        /// Not all zeros.
        case nonZero
        /// Exactly "0".
        case zero
        /// NNMM: piece NN of MM, both non-zero, NN <= MM.
        case pieceOfTotal
        /// Exactly "-" (the minus sign of 4330-4333 temperatures).
        case hyphen
        /// 0, 1 or 9 (8001's winding direction).
        case winding
    }

    let characters: Characters
    let minLength: Int
    let maxLength: Int
    let optional: Bool
    let rule: Rule

    var isFixed: Bool { minLength == maxLength && !optional }

    /// Exactly `length` digits.
    static func n(_ length: Int, _ rule: Rule = .none) -> GS1Component {
        GS1Component(characters: .numeric, minLength: length, maxLength: length, optional: false, rule: rule)
    }

    /// 1...`max` digits.
    static func n(upTo max: Int, _ rule: Rule = .none) -> GS1Component {
        GS1Component(characters: .numeric, minLength: 1, maxLength: max, optional: false, rule: rule)
    }

    /// Exactly `length` characters of CSET 82.
    static func x(_ length: Int, _ rule: Rule = .none) -> GS1Component {
        GS1Component(characters: .cset82, minLength: length, maxLength: length, optional: false, rule: rule)
    }

    /// 1...`max` characters of CSET 82.
    static func x(upTo max: Int) -> GS1Component {
        GS1Component(characters: .cset82, minLength: 1, maxLength: max, optional: false, rule: .none)
    }

    /// 1...`max` characters of CSET 39.
    static func y(upTo max: Int) -> GS1Component {
        GS1Component(characters: .cset39, minLength: 1, maxLength: max, optional: false, rule: .none)
    }

    /// 1...`max` characters of CSET 64.
    static func z(upTo max: Int) -> GS1Component {
        GS1Component(characters: .cset64, minLength: 1, maxLength: max, optional: false, rule: .none)
    }

    /// The same component, allowed to be absent (only as the last component of an AI).
    var orAbsent: GS1Component {
        GS1Component(characters: characters, minLength: minLength, maxLength: maxLength, optional: true, rule: rule)
    }
}
