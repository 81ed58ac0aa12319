/// A small strict JSON parser (RFC 8259) for payloads.
///
/// Why not JSONSerialization: payloads are attacker-controlled, and a card such as
/// `{"tenant_id":"mine","tenant_id":"theirs"}` must be refused, not resolved to whichever copy one
/// parser keeps while the backend keeps the other. JSONSerialization cannot report duplicate keys,
/// and on Linux its NSNumber bridging blurs true/1. This parser refuses duplicates, keeps types
/// exact, rejects lone surrogates, and is depth-limited (callers also pre-scan with
/// `JSONDepthScanner`, so recursion is bounded twice).
///
/// Controls, decided here (issue #16): `"vendor_id\u0000"` is a different Swift key from
/// `"vendor_id"`, so a card carrying both slipped past the duplicate-key rule while a C consumer
/// or a log reader sees two `vendor_id`s. No payload class has a key that is not plain text, so a
/// key holding any control (C0, DEL, C1) or invisible format character (Unicode Cf: bidi
/// overrides, zero-width space, BOM) is refused, escaped or raw. String values refuse NUL, DEL and
/// every C0/C1 control except tab, LF and CR (free-text members such as a card's "name" may wrap);
/// format characters stay allowed in values (emoji sequences need U+200D), and every text output
/// escapes them (`Output.printable`, `PayloadText.quoted`).
struct JSONParser {
    private let bytes: [UInt8]
    private let maxDepth: Int
    private var index = 0

    static func parse(_ bytes: [UInt8], maxDepth: Int = PayloadLimits.maxJSONDepth) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.error("unexpected text after the JSON value") }
        return value
    }

    private init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private func error(_ message: String, _ code: JSONParseError.Code = .syntax) -> JSONParseError {
        JSONParseError(code: code, message: "\(message) at byte \(index)", offset: index)
    }

    private mutating func skipWhitespace() {
        while let byte = current, ASCII.isWhitespace(byte) { index += 1 }
    }

    private mutating func expect(_ byte: UInt8, _ what: String) throws(JSONParseError) {
        guard current == byte else { throw error(current == nil ? "unexpected end, expected \(what)" : "expected \(what)") }
        index += 1
    }

    private mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard let byte = current else { throw error("unexpected end of JSON") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""):
            let offset = index
            let text = try parseString()
            if let scalar = text.unicodeScalars.first(where: Self.isRefusedInValue) {
                throw JSONParseError(code: .controlCharacter,
                                     message: "a string holds the control character U+\(PayloadText.hex(scalar.value, width: 4)) at byte \(offset)",
                                     offset: offset)
            }
            return .string(text)
        case UInt8(ascii: "t"): try parseLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try parseLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try parseLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error("unexpected character")
        }
    }

    private mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= maxDepth else { throw error("nested deeper than \(maxDepth) levels", .tooDeep) }
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("expected a quoted key") }
            let keyOffset = index
            let key = try parseString()
            if let scalar = key.unicodeScalars.first(where: Self.isRefusedInKey) {
                throw JSONParseError(code: .controlCharacter,
                                     message: "key \(PayloadText.quoted(key)) holds the control or invisible character U+\(PayloadText.hex(scalar.value, width: 4)) at byte \(keyOffset)",
                                     offset: keyOffset)
            }
            skipWhitespace()
            try expect(UInt8(ascii: ":"), "':'")
            skipWhitespace()
            let value = try parseValue(depth: depth)
            guard members[key] == nil else {
                throw JSONParseError(code: .duplicateKey, message: "duplicate key \(PayloadText.quoted(key)) at byte \(keyOffset)",
                                     offset: keyOffset)
            }
            members[key] = value
            skipWhitespace()
            if current == UInt8(ascii: ",") {
                index += 1
                continue
            }
            try expect(UInt8(ascii: "}"), "',' or '}'")
            return .object(members)
        }
    }

    private mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= maxDepth else { throw error("nested deeper than \(maxDepth) levels", .tooDeep) }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth))
            skipWhitespace()
            if current == UInt8(ascii: ",") {
                index += 1
                continue
            }
            try expect(UInt8(ascii: "]"), "',' or ']'")
            return .array(elements)
        }
    }

    private mutating func parseLiteral(_ word: String) throws(JSONParseError) {
        for byte in word.utf8 {
            guard current == byte else { throw error("unexpected character") }
            index += 1
        }
    }

    private mutating func parseNumber() throws(JSONParseError) -> String {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, ASCII.isDigit(first) else { throw error("invalid number") }
        index += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        if current == UInt8(ascii: ".") {
            index += 1
            guard let byte = current, ASCII.isDigit(byte) else { throw error("invalid number") }
            skipDigits()
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard let byte = current, ASCII.isDigit(byte) else { throw error("invalid number") }
            skipDigits()
        }
        return ASCII.string(bytes[start..<index])
    }

    private mutating func skipDigits() {
        while let byte = current, ASCII.isDigit(byte) { index += 1 }
    }

    /// Parses a string starting at the opening quote. The input is valid UTF-8 (it came from a
    /// Swift String), so raw bytes >= 0x80 are copied through; raw control bytes are refused per RFC.
    private mutating func parseString() throws(JSONParseError) -> String {
        index += 1
        var out: [UInt8] = []
        while true {
            guard let byte = current else { throw error("unterminated string") }
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index += 1
                try parseEscape(into: &out)
            case 0x00..<0x20:
                throw error("raw control character in a string")
            default:
                out.append(byte)
                index += 1
            }
        }
    }

    private mutating func parseEscape(into out: inout [UInt8]) throws(JSONParseError) {
        guard let byte = current else { throw error("unterminated escape") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""): out.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\"))
        case UInt8(ascii: "/"): out.append(UInt8(ascii: "/"))
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
            var value = try parseHex4()
            if (0xD800...0xDBFF).contains(value) {
                guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                    throw error("unpaired surrogate escape")
                }
                index += 2
                let low = try parseHex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate escape") }
                value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(value) {
                throw error("unpaired surrogate escape")
            }
            guard let scalar = Unicode.Scalar(value) else { throw error("invalid \\u escape") }
            out.append(contentsOf: Array(String(scalar).utf8))
        default:
            throw error("invalid escape")
        }
    }

    /// Keys: no control (C0, DEL, C1) and no format character (Cf).
    private static func isRefusedInKey(_ scalar: Unicode.Scalar) -> Bool {
        isControl(scalar) || scalar.properties.generalCategory == .format
    }

    /// Values: no control except tab, LF and CR.
    private static func isRefusedInValue(_ scalar: Unicode.Scalar) -> Bool {
        isControl(scalar) && scalar != "\t" && scalar != "\n" && scalar != "\r"
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("invalid \\u escape")
            }
            value = value * 16 + digit
            index += 1
        }
        return value
    }
}
