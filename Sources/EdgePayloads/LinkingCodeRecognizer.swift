import FoundationEssentials

/// `linking-code` (SCN-6, ENR-1..3): decides which payloads are linking-code *candidates*, then
/// validates them with the ENR-2 scanned normalisation and ENR-3 messages.
///
/// Candidate rules (what counts as "trying to be a linking code"), checked after the PO and
/// material rules so `PO-2024-00001` / `MAT-...` never get here:
/// - Strong carriers are candidates on any symbology, even when malformed (a wrong symbology is
///   then the reason): a URL with a `code=` query item, a JSON object with "type":"LINK", and the
///   whole payload shaped `XX-XXX-XXXXX` (dash or space separators; the last group may be 4-6 long
///   so one missing or extra character gets "9/10 characters"). The dashed shape must contain a
///   letter or start with a known sponsor prefix, so numeric IDs such as `12-345-67890` stay unknown.
/// - Weak carriers count only on QR / Code 128, the symbologies linking codes are printed on:
///   exactly 10 ASCII letters/digits as the whole payload or as a URL's last path segment. Ten
///   characters are common in unrelated data (order numbers, ASINs), so the weak form must either
///   start with a known sponsor prefix (then look-alikes are reported: a misprinted code) or be
///   entirely upper-case linking-code alphabet with at least one letter (then at worst the prefix
///   is "not recognized"). `1234567890` and `B07XYZ1234` therefore stay unknown.
/// - A URL's host is ignored and never contacted: the backend comes from the sponsor table.
/// - Control or invisible characters inside a carried code (e.g. a JSON `\u0000` escape or a
///   URL `%00`) make it invalid; they are never stripped into a clean-looking code.
struct LinkingCodeRecognizer: Sendable {
    let sponsors: SponsorTable

    static let symbologies: Set<Symbology> = [.qr, .code128]

    /// Bare text and URL carriers. Nil: not a candidate.
    func classifyText(_ text: String, bytes: [UInt8], symbology: Symbology) -> Classification? {
        if Self.isURL(bytes) { return classifyURL(text, symbology: symbology) }
        guard let strong = shape(bytes) else { return nil }
        if !strong && !Self.symbologies.contains(symbology) { return nil }
        return validate(text, carrier: .bare, symbology: symbology)
    }

    /// A weak "code" member of type-less JSON counts only if it has a candidate shape.
    func looksLikeCode(_ value: JSONValue?) -> Bool {
        guard case .string(let text) = value else { return false }
        return shape(Array(text.utf8)) != nil
    }

    func classifyJSON(_ object: [String: JSONValue], typeProblem: String?, symbology: Symbology) -> Classification {
        let details = ["carrier": LinkingCodeCarrier.json.rawValue]
        if let problem = symbologyProblem(symbology) { return .invalid(.linkingCode, problem, details) }
        if let typeProblem { return .invalid(.linkingCode, typeProblem, details) }
        guard let value = object["code"] else {
            return .invalid(.linkingCode, "the linking-code JSON has no \"code\"", details)
        }
        guard case .string(let code) = value else {
            return .invalid(.linkingCode, "\"code\" must be a string, found \(value.kindName)", details)
        }
        for key in object.keys.sorted() where key != "type" && key != "code" {
            if let extra = object[key], extra.isContainer {
                return .invalid(.linkingCode, "unexpected nested value (\(extra.kindName)) under \(PayloadText.quoted(key))", details)
            }
        }
        return validate(code, carrier: .json, symbology: symbology)
    }

    private func classifyURL(_ text: String, symbology: Symbology) -> Classification? {
        guard let components = URLComponents(string: text) else {
            guard text.contains("code=") else { return nil }
            let details = ["carrier": LinkingCodeCarrier.urlQuery.rawValue]
            if let problem = symbologyProblem(symbology) { return .invalid(.linkingCode, problem, details) }
            return .invalid(.linkingCode, "the link is not a valid URL", details)
        }
        let codes = (components.queryItems ?? []).filter { $0.name == "code" }
        if codes.count > 1 {
            return .invalid(.linkingCode, "the link carries more than one code",
                            ["carrier": LinkingCodeCarrier.urlQuery.rawValue])
        }
        if let item = codes.first {
            return validate(item.value ?? "", carrier: .urlQuery, symbology: symbology)
        }
        guard Self.symbologies.contains(symbology),
              let segment = components.path.split(separator: "/").last.map(String.init),
              shape(Array(segment.utf8)) != nil else { return nil }
        return validate(segment, carrier: .urlPath, symbology: symbology)
    }

    /// Validates a carried code: symbology, then taint, then ENR-2 scanned normalisation + ENR-3.
    private func validate(_ value: String, carrier: LinkingCodeCarrier, symbology: Symbology) -> Classification {
        var details = ["carrier": carrier.rawValue]
        if let problem = symbologyProblem(symbology) { return .invalid(.linkingCode, problem, details) }
        if let taint = PayloadTaint.first(in: value) {
            return .invalid(.linkingCode, "the linking code contains \(taint.kind)", details)
        }
        do {
            let code = try LinkingCodeValidator.validate(
                normalized: LinkingCodeNormalizer.normalize(value, source: .scanned), sponsors: sponsors)
            details["formatted"] = code.formatted
            details["prefix"] = code.prefix
            details["sponsor_id"] = code.sponsor.sponsorID
            return .valid(.linkingCode, details)
        } catch {
            return .invalid(.linkingCode, error.message, details)
        }
    }

    private func symbologyProblem(_ symbology: Symbology) -> String? {
        Self.symbologies.contains(symbology) ? nil
            : "linking codes are printed as QR or Code 128 codes; this is \(symbology.withArticle)"
    }

    /// nil: not a code shape; true: the strong dashed shape; false: the weak undashed shape.
    private func shape(_ bytes: [UInt8]) -> Bool? {
        let groups = bytes.split(omittingEmptySubsequences: false, whereSeparator: { $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: " ") })
        if groups.count == 3, groups[0].count == 2, groups[1].count == 3, (4...6).contains(groups[2].count),
           groups.allSatisfy({ $0.allSatisfy(ASCII.isAlphanumeric) }) {
            return bytes.contains(where: ASCII.isLetter) || knownPrefix(bytes) ? true : nil
        }
        guard bytes.count == LinkingCodeAlphabet.codeLength, bytes.allSatisfy(ASCII.isAlphanumeric) else { return nil }
        if knownPrefix(bytes) { return false }
        if bytes.allSatisfy(LinkingCodeAlphabet.contains) && bytes.contains(where: ASCII.isLetter) { return false }
        return nil
    }

    private func knownPrefix(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 2 else { return false }
        return sponsors.sponsor(forPrefix: ASCII.string(bytes.prefix(2).map(ASCII.uppercased))) != nil
    }

    /// `scheme://...` with no whitespace: RFC 3986 scheme characters, then "://".
    static func isURL(_ bytes: [UInt8]) -> Bool {
        guard let first = bytes.first, ASCII.isLetter(first) else { return false }
        var i = 1
        while i < bytes.count, ASCII.isAlphanumeric(bytes[i]) || "+.-".utf8.contains(bytes[i]) { i += 1 }
        guard i + 3 <= bytes.count, bytes[i] == UInt8(ascii: ":"), bytes[i + 1] == UInt8(ascii: "/"),
              bytes[i + 2] == UInt8(ascii: "/") else { return false }
        return !bytes.contains(where: ASCII.isWhitespace)
    }
}
