import FoundationEssentials

/// `linking-code` (SCN-6, ENR-1..3): decides which payloads are linking-code *candidates*, finds
/// the code their carrier holds, and validates it with the ENR-2 normalisation and ENR-3 messages.
/// The classifier (`edge scan`, the cameras) and every enrollment path (`LinkingCode(carriedBy:)`)
/// go through the same extraction (`carried(inURL:)`, `carried(inJSON:)`) and the same check
/// (`code(in:source:)`), so a carrier `edge scan` calls valid enrolls, and one it calls invalid is
/// refused with the same words.
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
///
/// Text presented as a linking code (`code(carriedBy:)`: typed, pasted, a wedge scanner, a
/// camera read the classifier called a linking code) is read by these carrier rules, decided for
/// issue #28:
/// - `scheme://...` is a URL carrier: its `code=` query item, else its last path segment when that
///   segment is meant as a code (`presentedPathShape`); a link with neither holds no linking
///   code. `{` or `[` starts a JSON carrier, which must be the flat `{"type":"LINK","code":"..."}`
///   card. Anything else is the bare code.
/// - The code inside a URL or JSON carrier is normalised as scanned (ENR-2: only letters and
///   digits kept) even when a wedge scanner "typed" it: nobody types a link, and the 12-character
///   cap of typed input would cut it. A bare code is normalised as its source says.
/// - A carrier whose code is malformed gets ENR-3's message for that code; a carrier holding no
///   code (a JSON card without "code", a link with two) gets `unreadableCarrier` with the reason
///   `edge scan` gives; the sponsor table decides the prefix either way.
struct LinkingCodeRecognizer: Sendable {
    let sponsors: SponsorTable

    static let symbologies: Set<Symbology> = [.qr, .code128]

    /// What a carrier holds: the code's text as carried (before ENR-2), or why it holds none.
    enum Carried: Sendable, Equatable {
        case code(String, LinkingCodeCarrier)
        /// `reason`: what `edge scan` reports, e.g. "the link carries more than one code".
        case noCode(reason: String, LinkingCodeCarrier)

        var carrier: LinkingCodeCarrier {
            switch self {
            case .code(_, let carrier), .noCode(_, let carrier): carrier
            }
        }
    }

    // MARK: text presented as a linking code

    /// The linking code `payload` carries, for a payload presented as one (see the type's notes).
    /// `symbology`: the code's symbology when a camera read it; nil for keyboard input.
    func code(carriedBy payload: String, source: LinkingCodeInputSource, symbology: Symbology?) throws(LinkingCodeError) -> LinkingCode {
        let text = PayloadText.prepare(payload)
        // A control or invisible character anywhere is refused, never stripped (SCN-10): scanned
        // normalisation would otherwise drop it and leave a clean-looking code.
        if PayloadTaint.first(in: text) != nil { throw .invalidCharacters }
        let carried = Self.carried(inPresented: text)
        if let symbology, let problem = Self.symbologyProblem(symbology) {
            throw LinkingCodeError(.wrongSymbology, PayloadText.sentence(problem), context: Self.context(carried.carrier))
        }
        return try code(in: carried, source: carried.carrier == .bare ? source : .scanned)
    }

    /// How text presented as a linking code carries it.
    static func carried(inPresented text: String) -> Carried {
        let bytes = Array(text.utf8)
        if isURL(bytes) {
            guard let components = URLComponents(string: text) else {
                return .noCode(reason: "the link is not a valid URL", text.contains("code=") ? .urlQuery : .urlPath)
            }
            return carried(inURL: components, pathShape: presentedPathShape)
                ?? .noCode(reason: "the link has no code= item and its last path segment is not a linking code", .urlPath)
        }
        guard let first = bytes.first, first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else { return .code(text, .bare) }
        if JSONDepthScanner.exceeds(bytes, limit: PayloadLimits.maxJSONDepth) {
            return .noCode(reason: "the JSON is nested more than \(PayloadLimits.maxJSONDepth) levels deep", .json)
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            return .noCode(reason: "the linking-code JSON is not valid JSON: \(error.message)", .json)
        }
        guard case .object(let object) = value, let claim = JSONCardKind.detect(object), claim.kind == .link else {
            return .noCode(reason: #"the JSON is not a linking-code card {"type":"LINK","code":"..."}"#, .json)
        }
        return carried(inJSON: object, typeProblem: claim.typeProblem)
    }

    // MARK: the classifier's side

    /// Bare text and URL carriers. Nil: not a candidate.
    func classifyText(_ text: String, bytes: [UInt8], symbology: Symbology) -> Classification? {
        if Self.isURL(bytes) { return classifyURL(text, symbology: symbology) }
        guard let strong = shape(bytes) else { return nil }
        if !strong && !Self.symbologies.contains(symbology) { return nil }
        return classification(of: .code(text, .bare), symbology: symbology)
    }

    /// A weak "code" member of type-less JSON counts only if it has a candidate shape.
    func looksLikeCode(_ value: JSONValue?) -> Bool {
        guard case .string(let text) = value else { return false }
        return shape(Array(text.utf8)) != nil
    }

    func classifyJSON(_ object: [String: JSONValue], typeProblem: String?, symbology: Symbology) -> Classification {
        classification(of: Self.carried(inJSON: object, typeProblem: typeProblem), symbology: symbology)
    }

    private func classifyURL(_ text: String, symbology: Symbology) -> Classification? {
        guard let components = URLComponents(string: text) else {
            guard text.contains("code=") else { return nil }
            return classification(of: .noCode(reason: "the link is not a valid URL", .urlQuery), symbology: symbology)
        }
        // A path segment counts only on the symbologies codes are printed on (a weak carrier).
        let carried = Self.carried(inURL: components, pathShape: { segment in
            Self.symbologies.contains(symbology) && shape(Array(segment.utf8)) != nil
        })
        return carried.map { classification(of: $0, symbology: symbology) }
    }

    /// The classification of what a carrier holds: symbology first, then the carrier, then ENR-3.
    private func classification(of carried: Carried, symbology: Symbology) -> Classification {
        var details = ["carrier": carried.carrier.rawValue]
        if let problem = Self.symbologyProblem(symbology) { return .invalid(.linkingCode, problem, details) }
        switch carried {
        case .noCode(let reason, _):
            return .invalid(.linkingCode, reason, details)
        case .code(let value, _):
            // The scan output names the character, so a label's printer can be told what is wrong.
            if let taint = PayloadTaint.first(in: value) {
                return .invalid(.linkingCode, "the linking code contains \(taint.kind)", details)
            }
            do {
                let code = try self.code(in: carried, source: .scanned)
                details["formatted"] = code.formatted
                details["prefix"] = code.prefix
                details["sponsor_id"] = code.sponsor.sponsorID
                return .valid(.linkingCode, details)
            } catch {
                return .invalid(.linkingCode, error.message, details)
            }
        }
    }

    // MARK: shared by both sides

    /// The one check of a carried code: taint, ENR-2 normalisation by `source`, ENR-3.
    private func code(in carried: Carried, source: LinkingCodeInputSource) throws(LinkingCodeError) -> LinkingCode {
        let context = Self.context(carried.carrier)
        switch carried {
        case .noCode(let reason, _):
            throw LinkingCodeError(.unreadableCarrier, LinkingCodeError.unreadableCarrierMessage(reason), context: context)
        case .code(let value, _):
            if PayloadTaint.first(in: value) != nil { throw LinkingCodeError(.invalidCharacters, LinkingCodeError.invalidCharactersMessage, context: context) }
            do {
                return try LinkingCodeValidator.validate(normalized: LinkingCodeNormalizer.normalize(value, source: source), sponsors: sponsors)
            } catch {
                throw LinkingCodeError(error.code, error.message, context: error.context.merging(context) { own, _ in own })
            }
        }
    }

    /// URL carriers: the `code=` query item, else the last path segment when `pathShape` accepts
    /// it. Nil: the link holds neither.
    static func carried(inURL components: URLComponents, pathShape: (String) -> Bool) -> Carried? {
        let codes = (components.queryItems ?? []).filter { $0.name == "code" }
        if codes.count > 1 { return .noCode(reason: "the link carries more than one code", .urlQuery) }
        if let item = codes.first { return .code(item.value ?? "", .urlQuery) }
        guard let segment = components.path.split(separator: "/").last.map(String.init), pathShape(segment) else { return nil }
        return .code(segment, .urlPath)
    }

    /// The JSON card's "code" member; the card must be exactly `{"type":"LINK","code":"..."}`
    /// plus flat extra members.
    static func carried(inJSON object: [String: JSONValue], typeProblem: String?) -> Carried {
        if let typeProblem { return .noCode(reason: typeProblem, .json) }
        guard let value = object["code"] else { return .noCode(reason: "the linking-code JSON has no \"code\"", .json) }
        guard case .string(let code) = value else {
            return .noCode(reason: "\"code\" must be a string, found \(value.kindName)", .json)
        }
        for key in object.keys.sorted() where key != "type" && key != "code" {
            if let extra = object[key], extra.isContainer {
                return .noCode(reason: "unexpected nested value (\(extra.kindName)) under \(PayloadText.quoted(key))", .json)
            }
        }
        return .code(code, .json)
    }

    private static func context(_ carrier: LinkingCodeCarrier) -> [String: String] {
        carrier == .bare ? [:] : ["carrier": carrier.rawValue]
    }

    private static func symbologyProblem(_ symbology: Symbology) -> String? {
        symbologies.contains(symbology) ? nil
            : "linking codes are printed as QR or Code 128 codes; this is \(symbology.withArticle)"
    }

    /// nil: not a code shape; true: the strong dashed shape; false: the weak undashed shape.
    private func shape(_ bytes: [UInt8]) -> Bool? {
        if Self.isDashedShape(bytes) { return bytes.contains(where: ASCII.isLetter) || knownPrefix(bytes) ? true : nil }
        guard bytes.count == LinkingCodeAlphabet.codeLength, bytes.allSatisfy(ASCII.isAlphanumeric) else { return nil }
        if knownPrefix(bytes) { return false }
        if bytes.allSatisfy(LinkingCodeAlphabet.contains) && bytes.contains(where: ASCII.isLetter) { return false }
        return nil
    }

    /// A link presented as a linking code: its last path segment is meant as the code when it has
    /// the dashed shape or 9-11 letters and digits (one missing or extra, as the dashed shape
    /// allows), so "AB7KXM4PQ" gets "9/10 characters" rather than "no linking code"; prefixes and
    /// look-alikes are ENR-3's to judge, not the shape's.
    private static func presentedPathShape(_ segment: String) -> Bool {
        let bytes = Array(segment.utf8)
        return isDashedShape(bytes) || ((9...11).contains(bytes.count) && bytes.allSatisfy(ASCII.isAlphanumeric))
    }

    /// `XX-XXX-XXXX[XX]`: dash or space separators, letters and digits, the last group 4-6 long.
    private static func isDashedShape(_ bytes: [UInt8]) -> Bool {
        let groups = bytes.split(omittingEmptySubsequences: false, whereSeparator: { $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: " ") })
        return groups.count == 3 && groups[0].count == 2 && groups[1].count == 3 && (4...6).contains(groups[2].count)
            && groups.allSatisfy { $0.allSatisfy(ASCII.isAlphanumeric) }
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
