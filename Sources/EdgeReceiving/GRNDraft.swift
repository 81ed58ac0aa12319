import EdgeContract

/// What the operator entered for one delivery (RCV-2), before validation: per line the quantity
/// received in this delivery, an optional discrepancy flag and note. Lines left out were not in
/// this delivery.
public struct GRNDraft: Sendable, Hashable {
    public var poNumber: String
    public var lines: [GRNLine]

    public init(poNumber: String, lines: [GRNLine]) {
        self.poNumber = poNumber
        self.lines = lines
    }

    public static let maxLines = 999
    public static let maxNoteBytes = 500

    /// One `--line` argument: `N=QTY`, `N=QTY:FLAG` or `N=QTY:FLAG:NOTE` (the note may contain
    /// colons; an empty flag with a note is `N=QTY::NOTE`). Quantities are plain decimals; a
    /// negative one is parsed so the validator can say why it is refused.
    public static func parseLine(_ text: String) throws(ReceivingError) -> GRNLine {
        let shown = ReceivingClient.printable(String(text.prefix(80)))
        guard text.utf8.count <= maxNoteBytes + 64 else {
            throw ReceivingError(.invalidQuantity, "The line \(shown)... is too long; notes are at most \(maxNoteBytes) bytes.")
        }
        guard let equals = text.firstIndex(of: "=") else {
            throw ReceivingError(.invalidQuantity, "\(shown) is not a line: write LINE=QUANTITY[:FLAG[:NOTE]], e.g. 2=8:short:two cartons missing.")
        }
        guard let lineNo = Int(text[..<equals]), (1...9999).contains(lineNo) else {
            throw ReceivingError(.invalidQuantity, "\(shown): the line number before = must be a whole number from 1 to 9999.")
        }
        let parts = text[text.index(after: equals)...].split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        let quantityText = String(parts[0])
        guard let received = Self.decimal(quantityText) else {
            throw ReceivingError(.invalidQuantity, "Line \(lineNo): \(ReceivingClient.printable(quantityText).prefix(40)) is not a quantity (write e.g. 10 or 2.5).",
                                 context: ["line_no": String(lineNo)])
        }
        var discrepancy: GRNLine.Discrepancy?
        if parts.count > 1, !parts[1].isEmpty {
            guard let flag = GRNLine.Discrepancy(rawValue: parts[1].lowercased()) else {
                throw ReceivingError(.invalidQuantity, "Line \(lineNo): \(ReceivingClient.printable(String(parts[1].prefix(40)))) is not a discrepancy flag; use short, excess or damaged.",
                                     context: ["line_no": String(lineNo)])
            }
            discrepancy = flag
        }
        let note = parts.count > 2 && !parts[2].isEmpty ? String(parts[2]) : nil
        return GRNLine(lineNo: lineNo, received: received, discrepancy: discrepancy, note: note)
    }

    /// Plain decimal text (`10`, `2.5`, `-3`); no exponents, no thousands separators, at most 20
    /// characters, so what the operator typed is what is sent.
    static func decimal(_ text: String) -> Double? {
        guard !text.isEmpty, text.utf8.count <= 20 else { return nil }
        var digits = text.utf8.dropFirst(text.hasPrefix("-") ? 1 : 0)
        guard let first = digits.first, first != UInt8(ascii: ".") else { return nil }
        var seenPoint = false
        while let byte = digits.popFirst() {
            if byte == UInt8(ascii: ".") {
                guard !seenPoint, !digits.isEmpty else { return nil }
                seenPoint = true
            } else if !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                return nil
            }
        }
        return Double(text)
    }
}
