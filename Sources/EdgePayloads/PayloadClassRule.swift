import EdgeCore

/// A payload class added by configuration (SCN-6): a name, a regular expression and the
/// symbologies it applies to. Rules are tried after every built-in class, in configuration order;
/// the first match wins and is reported valid.
///
/// Decisions:
/// - Patterns use Swift `Regex` syntax (PCRE-like: `\d`, `{n}`, `(?<name>...)`). The match is a
///   search, not a whole match: anchor with `^...$`. Named capture groups become details.
/// - Patterns are compiled when the rule is made, so an invalid one is refused at load time.
///   `Regex` is not `Sendable`, so the (immutable) pattern text is stored and compiled again at
///   match time; that costs tens of microseconds and only happens for payloads no built-in claimed.
/// - Patterns are trusted configuration: this module does not guard against catastrophic
///   backtracking; keep patterns simple. Payloads they see are at most 4096 bytes.
/// - `ean13` is refused: every EAN-13 payload is a built-in `product`, so such a rule could never
///   match, and a silently dead rule is worse than a refused one.
public struct PayloadClassRule: Sendable, Equatable, Hashable, Decodable {
    public let name: String
    public let pattern: String
    public let symbologies: Set<Symbology>

    static let maxNameLength = 32
    static let maxPatternLength = 1024

    public init(name: String, pattern: String, symbologies: [Symbology]) throws(PayloadConfigError) {
        try Self.checkName(name)
        try Self.checkPattern(pattern, name: name)
        guard !symbologies.isEmpty else {
            throw PayloadConfigError(.badSymbologies, "class \"\(name)\" lists no symbologies", context: ["class": name])
        }
        if symbologies.contains(.ean13) {
            throw PayloadConfigError(.badSymbologies,
                "class \"\(name)\" cannot use ean13: every EAN-13 code is classified as product",
                context: ["class": name])
        }
        self.name = name
        self.pattern = pattern
        self.symbologies = Set(symbologies)
    }

    private enum Keys: String, CodingKey, CaseIterable {
        case name, pattern, symbologies
    }

    /// The keys of one `classes[]` entry (unknown ones are refused by the station's loader).
    public static let configurationKeys = ConfigurationKeys.object(Keys.self)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        let name = try container.decode(String.self, forKey: .name)
        let pattern = try container.decode(String.self, forKey: .pattern)
        // Decoded as strings so an unknown symbology gets a message listing the choices.
        let names = try container.decode([String].self, forKey: .symbologies)
        do {
            var symbologies: [Symbology] = []
            for symbologyName in names {
                guard let symbology = Symbology(rawValue: symbologyName) else {
                    throw PayloadConfigError(.badSymbologies,
                        "class \(PayloadText.quoted(name)): unknown symbology \(PayloadText.quoted(symbologyName)); choose from qr, code128, code39",
                        context: ["class": name])
                }
                symbologies.append(symbology)
            }
            try self.init(name: name, pattern: pattern, symbologies: symbologies)
        } catch {
            throw PayloadConfigError.from(error).located(at: decoder.codingPath)
        }
    }

    /// Lower-case kebab-case like the built-ins, so names are safe as JSON values and CLI words.
    private static func checkName(_ name: String) throws(PayloadConfigError) {
        let bytes = Array(name.utf8)
        let wellFormed = !bytes.isEmpty && bytes.count <= maxNameLength && ASCII.isLower(bytes[0])
            && bytes.allSatisfy { ASCII.isLower($0) || ASCII.isDigit($0) || $0 == UInt8(ascii: "-") }
            && bytes.last != UInt8(ascii: "-") && !name.contains("--")
        guard wellFormed else {
            throw PayloadConfigError(.badClassName,
                "class name \(PayloadText.quoted(name)) must be 1-\(maxNameLength) characters of a-z, 0-9 and single dashes, starting with a letter",
                context: ["class": name])
        }
        guard BuiltInPayloadClass(rawValue: name) == nil else {
            throw PayloadConfigError(.badClassName, "class name \"\(name)\" is a built-in class", context: ["class": name])
        }
    }

    private static func checkPattern(_ pattern: String, name: String) throws(PayloadConfigError) {
        guard !pattern.isEmpty, pattern.utf8.count <= maxPatternLength else {
            throw PayloadConfigError(.invalidPattern,
                "class \"\(name)\": the pattern must be 1-\(maxPatternLength) bytes", context: ["class": name])
        }
        do {
            _ = try Regex(pattern)
        } catch {
            throw PayloadConfigError(.invalidPattern,
                "class \"\(name)\": invalid pattern \(PayloadText.quoted(pattern, limit: 80)): \(error)",
                context: ["class": name])
        }
    }

    /// The classification when this rule claims the payload, else nil.
    func classify(_ text: String, symbology: Symbology) -> Classification? {
        guard symbologies.contains(symbology), let regex = try? Regex(pattern),
              let match = try? regex.firstMatch(in: text) else { return nil }
        var details: [String: String] = [:]
        for capture in match.output {
            if let name = capture.name, let value = capture.substring { details[name] = String(value) }
        }
        return Classification(className: name, valid: true, reason: nil, details: details)
    }
}
