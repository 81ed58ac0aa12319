/// Decides what a decoded payload is (SCN-6) without trusting it (SCN-10). Pure: no I/O.
///
/// Order of checks (first that claims the payload wins):
/// 1. Over `PayloadLimits.maxPayloadBytes` -> `unknown`, invalid, not inspected. Bytes that are not
///    valid UTF-8 (`classify(bytes:)`) -> `unknown`, invalid, with the offset of the first bad byte.
/// 2. GS1 element strings (`GS1Recognizer`), before the taint check because their separator is
///    a control character (GS): payloads the scanner marked GS1 (zbar's modifier for GS1-128
///    and GS1 QR), and text opening with a GS1 symbology identifier (`]C1`) or in the
///    human-readable form `(01)...`. Never on EAN-13. `product` with a GTIN, else `gs1`.
/// 3. A leading byte-order mark and surrounding space/tab/CR/LF are ignored.
/// 4. Control characters, NULs, invisible format characters, line separators and U+FFFD anywhere
///    else taint the payload: it is classified as if they were absent (so the operator learns what
///    it was trying to be), then reported invalid with the first such character and its position,
///    and without details, so `AB-CDE-FGHJK\0` can never pass as a clean code.
/// 5. EAN-13 -> `product`, always.
/// 6. `{` / `[` -> JSON cards: `vendor`, `linking-code` (see `JSONPayloadRecognizer`).
/// 7. `PO` + separator/digit -> `purchase-order`; `MAT` + separator -> `material`.
/// 8. Linking-code candidates (see `LinkingCodeRecognizer` for what counts as one).
/// 9. Configured classes, in order, on the symbologies they list.
/// 10. `unknown`, valid, no reason: not an error, just a code edge has no meaning for (the caller
///    still reports its text). `unknown` is only invalid for the hostile cases in 1 and 4 and for
///    JSON nested too deep.
public struct PayloadClassifier: Sendable {
    public let sponsors: SponsorTable
    public let extraClasses: [PayloadClassRule]
    /// The year GS1 two-digit years are read around (GS1 GenSpecs 7.12, `GS1Date`); nil: the
    /// current UTC year at each classification.
    public var gs1ReferenceYear: Int?
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

    /// `gs1`: the scanner marked the symbol as GS1 (FNC1 in first position), so the payload is
    /// GS1 element data (`ScanResult.gs1`).
    public func classify(bytes: [UInt8], symbology: Symbology, gs1: Bool = false) -> Classification {
        if bytes.count > PayloadLimits.maxPayloadBytes { return Self.oversized(bytes.count) }
        if let offset = UTF8Validator.firstInvalidOffset(bytes) {
            return .invalid(.unknown,
                "the payload is not valid UTF-8 text (byte 0x\(PayloadText.hex(UInt32(bytes[offset]), width: 2)) at offset \(offset)) and was not inspected",
                ["offset": String(offset)])
        }
        return classify(text: String(decoding: bytes, as: UTF8.self), symbology: symbology, gs1: gs1)
    }

    public func classify(text: String, symbology: Symbology, gs1: Bool = false) -> Classification {
        let size = text.utf8.count
        if size > PayloadLimits.maxPayloadBytes { return Self.oversized(size) }
        if symbology != .ean13 {
            let year = gs1ReferenceYear ?? GS1Date.currentYear()
            if gs1 { return GS1Recognizer.classify(text, marked: true, referenceYear: year) }
            let prepared = PayloadText.prepare(text)
            if GS1Recognizer.isCandidate(Array(prepared.utf8)) {
                return GS1Recognizer.classify(prepared, marked: false, referenceYear: year)
            }
        }
        guard let taint = PayloadTaint.first(in: text) else {
            return classifyClean(PayloadText.prepare(text), symbology: symbology)
        }
        let underlying = classifyClean(PayloadText.prepare(PayloadTaint.removingAll(from: text)), symbology: symbology)
        return Classification(className: underlying.className, valid: false, reason: taint.reason,
                              details: ["character": taint.codePoint, "position": String(taint.position)])
    }

    /// Text known to be GS1 data, in any of its forms: element data as a GS1 symbol carries it
    /// (a camera's GS1-128 read as its scan event stores it), with a GS1 symbology identifier
    /// (`]C1...`), or human-readable (`(01)...`). `product` with a GTIN, else `gs1`.
    public func classifyGS1(text: String) -> Classification {
        let size = text.utf8.count
        if size > PayloadLimits.maxPayloadBytes { return Self.oversized(size) }
        return GS1Recognizer.classify(PayloadText.prepare(text), marked: false, referenceYear: gs1ReferenceYear ?? GS1Date.currentYear())
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
