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

    /// The linking code `payload` carries, for text presented as one: typed or pasted, from a
    /// wedge scanner, or a camera read the classifier called `linking-code`. Every carrier SCN-6
    /// accepts counts (bare `AB-7KX-M4PQR` / `AB7KXM4PQR`, a URL's `code=` query item or last
    /// path segment, JSON `{"type":"LINK","code":"..."}`); the code inside is normalised per ENR-2
    /// (a bare code by `source`, a carried one as scanned) and checked per ENR-3, with the sponsor
    /// table deciding the prefix. The one place a payload becomes a linking code: every
    /// enrollment path (CLI, stdin, cameras, the kiosk's field and camera) calls it, and the
    /// classifier runs the same extraction and check (`LinkingCodeRecognizer`).
    ///
    /// `symbology`: what a camera read the code on (a wrong one is refused as `edge scan` says);
    /// nil for keyboard input, which does not say.
    public init(carriedBy payload: String, source: LinkingCodeInputSource, symbology: Symbology? = nil,
                sponsors: SponsorTable) throws(LinkingCodeError) {
        self = try LinkingCodeRecognizer(sponsors: sponsors).code(carriedBy: payload, source: source, symbology: symbology)
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
