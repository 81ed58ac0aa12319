import EdgePayloads

extension PayloadClassifier {
    /// Classifies a decoded code (SCN-6). QR payloads that were not valid UTF-8 are classified
    /// from their raw bytes, so a hostile byte string cannot pose as clean text. A symbol the
    /// scanner marked GS1 is read as GS1 element data (SCN-13).
    public func classify(_ result: ScanResult) -> Classification {
        // A fragment of a structured-append message must not pass for a whole payload (a PO
        // number or linking code cut short would still look like one).
        if result.partialSequence {
            return Classification(className: "unknown", valid: false,
                                  reason: "one symbol of a structured-append sequence; the other symbols were not in the image")
        }
        let symbology = Symbology(result.format)
        if result.format == .qr && result.encoding != "utf-8" {
            return classify(bytes: result.bytes, symbology: symbology, gs1: result.gs1)
        }
        return classify(text: result.text, symbology: symbology, gs1: result.gs1)
    }
}

extension Symbology {
    public init(_ format: BarcodeFormat) {
        switch format {
        case .qr: self = .qr
        case .code128: self = .code128
        case .code39: self = .code39
        case .ean13: self = .ean13
        case .code32: self = .code32
        }
    }
}
