/// A linking code that passed local validation (ENR-1..3): 10 alphabet characters whose 2-character
/// prefix names a sponsor in the table.
///
/// `description` is redacted so that string interpolation into a log line cannot leak the code
/// (ENR-8); use `value` or `formatted` deliberately.
public struct LinkingCode: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The normalised 10 characters, e.g. "ABCDEFGHJK".
    public let value: String
    /// The sponsor the prefix maps to (ENR-4), i.e. where the code is validated (ENR-5).
    public let sponsor: SponsorEntry

    /// Normalises `input` per ENR-2 and validates it per ENR-3.
    public init(parsing input: String, source: LinkingCodeInputSource, sponsors: SponsorTable) throws(LinkingCodeError) {
        self = try LinkingCodeValidator.validate(normalized: LinkingCodeNormalizer.normalize(input, source: source),
                                                 sponsors: sponsors)
    }

    init(checkedValue: String, sponsor: SponsorEntry) {
        self.value = checkedValue
        self.sponsor = sponsor
    }

    public var prefix: String { String(value.prefix(LinkingCodeAlphabet.prefixLength)) }

    /// Display form `XX-XXX-XXXXX` (ENR-1).
    public var formatted: String {
        let chars = Array(value)
        return String(chars[0..<2]) + "-" + String(chars[2..<5]) + "-" + String(chars[5...])
    }

    public var description: String { "\(prefix)-***-*****" }
    public var debugDescription: String { "LinkingCode(\(description))" }
}
