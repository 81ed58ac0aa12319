/// Decides what a decoded payload is (SCN-6) without trusting it (SCN-10). Pure: no I/O.
///
/// Order of checks (first that claims the payload wins):
/// 1. Over `PayloadLimits.maxPayloadBytes` -> `unknown`, invalid, not inspected. Bytes that are not
///    valid UTF-8 (`classify(bytes:)`) -> `unknown`, invalid, with the offset of the first bad byte.
/// 2. A leading byte-order mark and surrounding space/tab/CR/LF are ignored.
/// 3. Control characters, NULs, invisible format characters, line separators and U+FFFD anywhere
///    else taint the payload: it is classified as if they were absent (so the operator learns what
///    it was trying to be), then reported invalid with the first such character and its position,
///    and without details, so `AB-CDE-FGHJK\0` can never pass as a clean code.
/// 4. EAN-13 -> `product`, always.
/// 5. `{` / `[` -> JSON cards: `vendor`, `linking-code` (see `JSONPayloadRecognizer`).
/// 6. `PO` + separator/digit -> `purchase-order`; `MAT` + separator -> `material`.
/// 7. Linking-code candidates (see `LinkingCodeRecognizer` for what counts as one).
/// 8. Configured classes, in order, on the symbologies they list.
/// 9. `unknown`, valid, no reason: not an error, just a code edge has no meaning for (the caller
///    still reports its text). `unknown` is only invalid for the hostile cases in 1 and 3 and for
///    JSON nested too deep.
public struct PayloadClassifier: Sendable {
    public let sponsors: SponsorTable
    public let extraClasses: [PayloadClassRule]
    private let linking: LinkingCodeRecognizer
    private let json: JSONPayloadRecognizer

    public init(sponsors: SponsorTable, extraClasses: [PayloadClassRule] = []) {
        self.sponsors = sponsors
        self.extraClasses = extraClasses
        linking = LinkingCodeRecognizer(sponsors: sponsors)
        json = JSONPayloadRecognizer(linking: linking)
    }

    public init(config: PayloadConfig) {
        self.init(sponsors: config.sponsors, extraClasses: config.classes)
    }

    public func classify(bytes: [UInt8], symbology: Symbology) -> Classification {
        if bytes.count > PayloadLimits.maxPayloadBytes { return Self.oversized(bytes.count) }
        if let offset = UTF8Validator.firstInvalidOffset(bytes) {
            return .invalid(.unknown,
                "the payload is not valid UTF-8 text (byte 0x\(PayloadText.hex(UInt32(bytes[offset]), width: 2)) at offset \(offset)) and was not inspected",
                ["offset": String(offset)])
        }
        return classify(text: String(decoding: bytes, as: UTF8.self), symbology: symbology)
    }

    public func classify(text: String, symbology: Symbology) -> Classification {
        let size = text.utf8.count
        if size > PayloadLimits.maxPayloadBytes { return Self.oversized(size) }
        guard let taint = PayloadTaint.first(in: text) else {
            return classifyClean(PayloadText.prepare(text), symbology: symbology)
        }
        let underlying = classifyClean(PayloadText.prepare(PayloadTaint.removingAll(from: text)), symbology: symbology)
        return Classification(className: underlying.className, valid: false, reason: taint.reason,
                              details: ["character": taint.codePoint, "position": String(taint.position)])
    }

    private func classifyClean(_ text: String, symbology: Symbology) -> Classification {
        let bytes = Array(text.utf8)
        if symbology == .ean13 { return ProductRecognizer.classify(bytes) }
        if let first = bytes.first, first == UInt8(ascii: "{") || first == UInt8(ascii: "["),
           let card = json.classify(text, bytes: bytes, symbology: symbology) {
            return card
        }
        if PurchaseOrderRecognizer.isCandidate(bytes) { return PurchaseOrderRecognizer.classify(text, symbology: symbology) }
        if MaterialRecognizer.isCandidate(bytes) { return MaterialRecognizer.classify(text, symbology: symbology) }
        if let code = linking.classifyText(text, bytes: bytes, symbology: symbology) { return code }
        for rule in extraClasses {
            if let match = rule.classify(text, symbology: symbology) { return match }
        }
        return .unknown
    }

    private static func oversized(_ size: Int) -> Classification {
        .invalid(.unknown, "the payload is \(size) bytes long; payloads over \(PayloadLimits.maxPayloadBytes) bytes are not inspected",
                 ["bytes": String(size)])
    }
}
