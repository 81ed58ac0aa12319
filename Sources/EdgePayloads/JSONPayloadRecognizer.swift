/// Payloads that start with `{` or `[`: vendor cards and linking-code JSON (SCN-6), under the
/// SCN-10 limits.
///
/// Decisions:
/// - Depth is measured by a byte scan before parsing; deeper than `PayloadLimits.maxJSONDepth`
///   -> `unknown`, invalid, not inspected (the class cannot be known without parsing).
/// - JSON that does not parse but mentions "VENDOR" / "LINK" as a string is a broken card of that
///   class (with the parse error as the reason); other broken JSON is left to configured classes
///   and `unknown`.
/// - A VENDOR or LINK object nested inside other JSON is that class, invalid: cards are flat.
struct JSONPayloadRecognizer: Sendable {
    let linking: LinkingCodeRecognizer

    /// Nil: not a card; configured classes and `unknown` decide.
    func classify(_ text: String, bytes: [UInt8], symbology: Symbology) -> Classification? {
        if JSONDepthScanner.exceeds(bytes, limit: PayloadLimits.maxJSONDepth) {
            return .invalid(.unknown,
                "the JSON is nested more than \(PayloadLimits.maxJSONDepth) levels deep and was not inspected")
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            return brokenCard(text, error)
        }
        if case .object(let object) = value, let claim = JSONCardKind.detect(object) {
            switch claim.kind {
            case .vendor:
                return VendorRecognizer.classify(object, typeProblem: claim.typeProblem, symbology: symbology)
            case .link where claim.typed || linking.looksLikeCode(object["code"]):
                return linking.classifyJSON(object, typeProblem: claim.typeProblem, symbology: symbology)
            case .link:
                break
            }
        }
        switch nestedCard(in: value, topLevel: true) {
        case .vendor?:
            return .invalid(.vendor, "the vendor card must be a flat JSON object at the top level, not nested inside other JSON")
        case .link?:
            return .invalid(.linkingCode, "the linking-code JSON must be a flat object at the top level, not nested inside other JSON",
                            ["carrier": LinkingCodeCarrier.json.rawValue])
        case nil:
            return nil
        }
    }

    /// The vendor keys count as a claim too (as in `JSONCardKind`): a card refused for a control
    /// character in a key or value (`"vendor_id\u0000"`) is a bad vendor card, not `unknown`.
    private func brokenCard(_ text: String, _ error: JSONParseError) -> Classification? {
        let lower = text.lowercased()
        if lower.contains("\"vendor\"") || lower.contains("\"vendor_id") || lower.contains("\"tenant_id") {
            return .invalid(.vendor, "the vendor card is not valid JSON: \(error.message)")
        }
        if lower.contains("\"link\"") {
            return .invalid(.linkingCode, "the linking-code JSON is not valid JSON: \(error.message)",
                            ["carrier": LinkingCodeCarrier.json.rawValue])
        }
        return nil
    }

    /// First object below the top level whose "type" names a card. Recursion is bounded by the
    /// depth limit the parser enforced.
    private func nestedCard(in value: JSONValue, topLevel: Bool) -> JSONCardKind? {
        switch value {
        case .object(let object):
            if !topLevel, let claim = JSONCardKind.detect(object), claim.typed { return claim.kind }
            for key in object.keys.sorted() {
                if let child = object[key], let found = nestedCard(in: child, topLevel: false) { return found }
            }
            return nil
        case .array(let elements):
            for element in elements {
                if let found = nestedCard(in: element, topLevel: false) { return found }
            }
            return nil
        default:
            return nil
        }
    }
}
