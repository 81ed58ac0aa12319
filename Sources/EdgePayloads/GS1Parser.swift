/// Reads GS1 element strings into elements (`GS1ElementString`), refusing the first problem with
/// a `GS1Error` that names the AI. Works on byte slices of at most `GS1ElementString.maxBytes`
/// and keeps at most `maxElements` elements, so hostile input costs little.
///
/// Decisions:
/// - A separator (GS) is accepted after any element, also after a predefined-length one where
///   GS1 does not need it, and a trailing one is ignored: encoders differ, the data does not.
/// - A fixed-length AI outside the predefined-length table (7003, 422, ...) not followed by a
///   separator is refused: GS1 requires one, and without it the label is malformed.
/// - A variable-length value runs to the next GS or the end. One longer than its AI allows is
///   refused with a hint that a separator may be missing (the usual cause: an encoder that
///   dropped FNC1 joins the next element to it).
/// - The same AI twice with different values, and AIs GS1 forbids together (its `ex=` pairs,
///   e.g. (01) with (02) or (37), two net weights), are refused. GS1's mandatory associations
///   (`req=`, e.g. (10) needs a GTIN) are not checked: GS1 evaluates them over every carrier
///   on the item, and a carton's other barcode may hold the partner.
struct GS1Parser {
    let referenceYear: Int
    private(set) var elements: [GS1Element] = []
    /// Offset added to positions in messages (the length of a symbology identifier removed).
    private var base = 0

    static let separator: UInt8 = 0x1D

    init(referenceYear: Int) { self.referenceYear = referenceYear }

    mutating func parseAnyForm(_ bytes: ArraySlice<UInt8>) throws(GS1Error) {
        try checkSize(bytes)
        for identifier in GS1ElementString.symbologyIdentifiers where bytes.starts(with: identifier.utf8) {
            base = identifier.utf8.count
            try parseElementData(bytes.dropFirst(identifier.utf8.count))
            return
        }
        if bytes.first == UInt8(ascii: "(") {
            try parseHumanReadable(bytes)
        } else {
            try parseElementData(bytes)
        }
    }

    // MARK: Element data (FNC1 / GS separated)

    mutating func parseElementData(_ bytes: ArraySlice<UInt8>) throws(GS1Error) {
        try checkSize(bytes)
        var i = bytes.startIndex
        // An FNC1 in first position some decoders pass on as GS is a marker, not data.
        if i < bytes.endIndex && bytes[i] == Self.separator { i += 1 }
        guard i < bytes.endIndex else { throw GS1Error(.empty, "the GS1 element string holds no data") }
        while i < bytes.endIndex {
            try checkCount()
            let definition = try identify(bytes[i...], at: i - bytes.startIndex)
            let valueStart = i + definition.ai.utf8.count
            let value: ArraySlice<UInt8>
            if definition.isFixedLength {
                let end = valueStart + definition.maxLength
                let available = bytes[valueStart..<min(end, bytes.endIndex)]
                let cut = available.firstIndex(of: Self.separator) ?? available.endIndex
                guard cut == end else {
                    throw error(.valueTooShort, definition, valueStart - bytes.startIndex,
                                "the value has \(cut - valueStart) characters; it must have \(definition.maxLength)")
                }
                value = bytes[valueStart..<end]
                i = end
                if i < bytes.endIndex {
                    if bytes[i] == Self.separator {
                        i += 1
                    } else if !definition.predefinedLength {
                        throw error(.missingSeparator, definition, i - bytes.startIndex,
                                    "a separator (FNC1) must follow its \(definition.maxLength)-character value; found more data instead")
                    }
                }
            } else {
                let end = bytes[valueStart...].firstIndex(of: Self.separator) ?? bytes.endIndex
                value = bytes[valueStart..<end]
                i = end < bytes.endIndex ? end + 1 : end
                if value.count > definition.maxLength {
                    throw error(.valueTooLong, definition, valueStart - bytes.startIndex,
                                "the value is \(value.count) characters long; at most \(definition.maxLength) are allowed (is a separator missing after it?)")
                }
            }
            try append(definition, value, at: valueStart - bytes.startIndex)
        }
        try checkConflicts()
    }

    /// The AI starting `bytes`, or why there is none.
    private func identify(_ bytes: ArraySlice<UInt8>, at offset: Int) throws(GS1Error) -> GS1AIDefinition {
        if let definition = GS1AITable.definition(startOf: bytes) { return definition }
        let digits = bytes.prefix(4).prefix(while: ASCII.isDigit)
        let position = base + offset + 1
        if digits.count < 2 {
            let found = bytes.first.map { $0 == Self.separator ? "a separator" : PayloadText.quoted(ASCII.string([$0])) } ?? "the end"
            throw GS1Error.at(.malformedAI, "expected an application identifier (2-4 digits) at position \(position); found \(found)",
                              ai: nil, position: position)
        }
        let shown = ASCII.string(digits)
        throw GS1Error.at(.unknownAI, "unknown application identifier at position \(position): no GS1 AI matches the digits \(PayloadText.quoted(shown))",
                          ai: String(shown.prefix(2)), position: position)
    }

    // MARK: Human-readable form

    mutating func parseHumanReadable(_ bytes: ArraySlice<UInt8>) throws(GS1Error) {
        try checkSize(bytes)
        let trimmed = Self.trimmingSpaces(bytes)
        guard !trimmed.isEmpty else { throw GS1Error(.empty, "the GS1 element string holds no data") }
        var i = trimmed.startIndex
        guard let first = Self.aiInParentheses(trimmed, at: i) else {
            let position = i - bytes.startIndex + 1
            throw GS1Error.at(.malformedText, "expected an application identifier in parentheses, like (01), at position \(position)",
                              ai: nil, position: position)
        }
        var current = first
        while true {
            try checkCount()
            let aiStart = i + 1
            guard let definition = GS1AITable.definition(current.ai) else {
                let position = aiStart - bytes.startIndex + 1
                throw GS1Error.at(.unknownAI, "unknown application identifier (\(current.ai)) at position \(position)",
                                  ai: current.ai, position: position)
            }
            let valueStart = current.end
            // The value runs to the next "(" that opens an AI, or the end.
            var next: (ai: String, end: Int)?
            var j = valueStart
            while j < trimmed.endIndex {
                if trimmed[j] == UInt8(ascii: "("), let found = Self.aiInParentheses(trimmed, at: j) {
                    next = found
                    break
                }
                j += 1
            }
            let value = Self.trimmingSpaces(trimmed[valueStart..<j])
            if value.count > definition.maxLength {
                throw error(.valueTooLong, definition, value.startIndex - bytes.startIndex,
                            "the value is \(value.count) characters long; at most \(definition.maxLength) are allowed")
            }
            try append(definition, value, at: value.startIndex - bytes.startIndex)
            guard let following = next else { break }
            i = j
            current = following
        }
        try checkConflicts()
    }

    /// "(" 2-4 digits ")" at `index`: the AI and the index after ")".
    private static func aiInParentheses(_ bytes: ArraySlice<UInt8>, at index: Int) -> (ai: String, end: Int)? {
        guard index < bytes.endIndex, bytes[index] == UInt8(ascii: "(") else { return nil }
        let digits = bytes[(index + 1)...].prefix(5).prefix(while: ASCII.isDigit)
        let close = index + 1 + digits.count
        guard (2...4).contains(digits.count), close < bytes.endIndex, bytes[close] == UInt8(ascii: ")") else { return nil }
        return (ASCII.string(digits), close + 1)
    }

    private static func trimmingSpaces(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, first == UInt8(ascii: " ") { slice = slice.dropFirst() }
        while let last = slice.last, last == UInt8(ascii: " ") { slice = slice.dropLast() }
        return slice
    }

    // MARK: Values

    /// Checks `value` against `definition` component by component and keeps the element.
    private mutating func append(_ definition: GS1AIDefinition, _ value: ArraySlice<UInt8>, at offset: Int) throws(GS1Error) {
        if value.count < definition.minLength {
            let what = value.isEmpty ? "the value is empty" : "the value has \(value.count) characters"
            let need = definition.isFixedLength ? "it must have \(definition.minLength)" : "it needs at least \(definition.minLength)"
            throw error(.valueTooShort, definition, offset, "\(what); \(need)")
        }
        var date: GS1Date?
        var start = value.startIndex
        for (index, component) in definition.components.enumerated() {
            let remaining = value.endIndex - start
            if remaining == 0 && component.optional { break }
            let isLast = index == definition.components.count - 1
            let length = isLast ? remaining : component.maxLength
            guard length >= component.minLength, length <= component.maxLength, length <= remaining else {
                throw error(.valueTooShort, definition, offset, "the value has \(value.count) characters; it needs at least \(definition.minLength)")
            }
            let part = value[start..<(start + length)]
            if let bad = part.firstIndex(where: { !component.characters.allows($0) }) {
                let shown = Self.character(part[bad...])
                throw error(.invalidCharacter, definition, offset,
                            "\(shown) at position \(bad - value.startIndex + 1) of the value is not allowed (\(component.characters.name))")
            }
            if let found = try check(component.rule, part, definition, offset: offset), date == nil { date = found }
            start += length
        }
        let element = GS1Element(ai: definition.ai, title: definition.title, value: ASCII.string(value), date: date,
                                 decimalPlaces: definition.decimalPlaces)
        if let earlier = elements.first(where: { $0.ai == element.ai }), earlier.value != element.value {
            throw error(.conflictingAI, definition, offset,
                        "it appears twice with different values (\(PayloadText.quoted(earlier.value)) and \(PayloadText.quoted(element.value)))")
        }
        elements.append(element)
    }

    /// The component's rule; returns the date a date rule read.
    private func check(_ rule: GS1Component.Rule, _ part: ArraySlice<UInt8>, _ definition: GS1AIDefinition,
                       offset: Int) throws(GS1Error) -> GS1Date? {
        let digits = part.map { Int($0) - 48 }
        let text = ASCII.string(part)
        func refuse(_ code: GS1ErrorCode, _ message: String) -> GS1Error { error(code, definition, offset, message) }
        switch rule {
        case .none:
            return nil
        case .checkDigit:
            let expected = Self.checkDigit(digits.dropLast())
            guard let last = digits.last, last == expected else {
                throw refuse(.badCheckDigit, "check digit is \(digits.last ?? 0), expected \(expected)")
            }
            return nil
        case .date(let dayZero):
            return try date(part, dayZero: dayZero, definition, offset: offset)
        case .dateHour:
            let day = try date(part.prefix(6), dayZero: false, definition, offset: offset)
            let hour = digits[6] * 10 + digits[7]
            guard hour <= 23 else { throw refuse(.invalidDate, "\(text): hour \(hour) does not exist (YYMMDDHH)") }
            return day
        case .time:
            let hour = digits[0] * 10 + digits[1], minute = digits[2] * 10 + digits[3]
            guard hour <= 23, minute <= 59 else { throw refuse(.invalidDate, "\(text) is not a time of day (HHMM)") }
            return nil
        case .minutesSeconds:
            guard digits.count == 2 || digits.count == 4 else {
                throw refuse(.invalidValue, "\(text) must be minutes (MM) or minutes and seconds (MMSS)")
            }
            guard digits[0] * 10 + digits[1] <= 59, digits.count == 2 || digits[2] * 10 + digits[3] <= 59 else {
                throw refuse(.invalidDate, "\(text) is not minutes and seconds (MMSS)")
            }
            return nil
        case .yesNo:
            guard text == "0" || text == "1" else { throw refuse(.invalidValue, "\(text) must be 0 (no) or 1 (yes)") }
            return nil
        case .nonZero:
            guard digits.contains(where: { $0 != 0 }) else { throw refuse(.invalidValue, "\(text) must not be zero") }
            return nil
        case .zero:
            guard text == "0" else { throw refuse(.invalidValue, "the value must start with 0, not \(text)") }
            return nil
        case .pieceOfTotal:
            let piece = digits[0] * 10 + digits[1], total = digits[2] * 10 + digits[3]
            guard piece >= 1, total >= 1, piece <= total else {
                throw refuse(.invalidValue, "piece \(piece) of \(total) is not a piece of a whole (NNMM, 1 <= NN <= MM)")
            }
            return nil
        case .hyphen:
            guard text == "-" else { throw refuse(.invalidValue, "only \"-\" (a negative temperature) may follow the six digits") }
            return nil
        case .winding:
            guard text == "0" || text == "1" || text == "9" else {
                throw refuse(.invalidValue, "the winding direction \(text) must be 0, 1 or 9")
            }
            return nil
        }
    }

    private func date(_ part: ArraySlice<UInt8>, dayZero: Bool, _ definition: GS1AIDefinition, offset: Int) throws(GS1Error) -> GS1Date {
        switch GS1Date.parse(part, dayZero: dayZero, referenceYear: referenceYear) {
        case .success(let date): return date
        case .failure(let problem):
            throw error(.invalidDate, definition, offset, "\(ASCII.string(part)) is not a date (YYMMDD): \(problem.text)")
        }
    }

    /// GS1 mod-10 over the data digits: weights 3, 1, 3, ... from the right.
    static func checkDigit(_ data: ArraySlice<Int>) -> Int {
        var sum = 0
        for (i, digit) in data.reversed().enumerated() { sum += digit * (i % 2 == 0 ? 3 : 1) }
        return (10 - sum % 10) % 10
    }

    // MARK: Bounds and pairs

    private func checkSize(_ bytes: ArraySlice<UInt8>) throws(GS1Error) {
        guard bytes.count <= GS1ElementString.maxBytes else {
            throw GS1Error(.tooLong, "the GS1 element string is \(bytes.count) bytes long; at most \(GS1ElementString.maxBytes) are read",
                           context: ["bytes": String(bytes.count)])
        }
    }

    private func checkCount() throws(GS1Error) {
        guard elements.count < GS1ElementString.maxElements else {
            throw GS1Error(.tooLong, "the GS1 element string holds more than \(GS1ElementString.maxElements) elements",
                           context: ["elements": String(elements.count)])
        }
    }

    private func checkConflicts() throws(GS1Error) {
        for (i, a) in elements.enumerated() {
            guard let first = GS1AITable.definition(a.ai) else { continue }
            for b in elements[(i + 1)...] where b.ai != a.ai {
                guard let second = GS1AITable.definition(b.ai) else { continue }
                let excluded = first.excludes.contains { GS1AIDefinition.pattern($0, matches: b.ai) }
                    || second.excludes.contains { GS1AIDefinition.pattern($0, matches: a.ai) }
                if excluded {
                    throw GS1Error(.conflictingAI, "(\(a.ai)) \(a.title) and (\(b.ai)) \(b.title) may not be in one GS1 element string",
                                   context: ["ai": b.ai, "other_ai": a.ai])
                }
            }
        }
    }

    private func error(_ code: GS1ErrorCode, _ definition: GS1AIDefinition, _ offset: Int, _ reason: String) -> GS1Error {
        let position = base + offset + 1
        return GS1Error.at(code, "(\(definition.ai)) \(definition.title): \(reason)", ai: definition.ai, position: position)
    }

    /// One character of hostile text, quoted and escaped for a message.
    private static func character(_ bytes: ArraySlice<UInt8>) -> String {
        guard let first = bytes.first else { return "\"\"" }
        if first == separator { return "a separator (GS)" }
        if first < 0x80 { return PayloadText.quoted(ASCII.string([first])) }
        // A multi-byte UTF-8 character: shown whole when it decodes, else as its first byte.
        let scalar = String(decoding: bytes.prefix(4), as: UTF8.self).unicodeScalars.first
        return scalar.map { PayloadText.quoted(String($0)) } ?? "byte 0x\(PayloadText.hex(UInt32(first), width: 2))"
    }
}
