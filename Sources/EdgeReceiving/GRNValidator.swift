import EdgeContract

/// The RCV-2 rules for a GRN draft against the order the operator is looking at. Errors block
/// the confirmation; suggestions do not (a short delivery may be a partial one, with the rest to
/// come, so a short line without a flag is allowed, with the suggestion to flag it `short`).
public enum GRNValidator {
    public struct Result: Sendable, Hashable {
        public var errors: [GRNIssue] = []
        public var suggestions: [GRNIssue] = []

        public var isValid: Bool { errors.isEmpty }
    }

    public static func validate(_ draft: GRNDraft, against order: PurchaseOrder) -> Result {
        var result = Result()
        guard !draft.lines.isEmpty else {
            result.errors.append(GRNIssue(lineNo: nil, message: "The GRN has no lines; give at least one as LINE=QUANTITY."))
            return result
        }
        guard draft.lines.count <= GRNDraft.maxLines else {
            result.errors.append(GRNIssue(lineNo: nil, message: "The GRN has \(draft.lines.count) lines; at most \(GRNDraft.maxLines) are accepted."))
            return result
        }
        let known = order.lines.map(\.lineNo).sorted()
        var seen = Set<Int>()
        for line in draft.lines {
            let n = line.lineNo
            func error(_ text: String) { result.errors.append(GRNIssue(lineNo: n, message: "Line \(n): " + text)) }
            guard let ordered = order.lines.first(where: { $0.lineNo == n }) else {
                error("\(order.poNumber) has no line \(n) (its lines are \(known.map(String.init).joined(separator: ", "))).")
                continue
            }
            guard seen.insert(n).inserted else {
                error("the line is given twice; give each line once with the total received in this delivery.")
                continue
            }
            let unit = ordered.unit
            guard line.received.isFinite, line.received >= 0 else {
                error("the received quantity must not be negative (\(text(line.received)) \(unit)).")
                continue
            }
            if !UnitPrecision.fits(line.received, unit: unit) {
                let places = UnitPrecision.decimals(unit)
                error(places == 0
                      ? "\(text(line.received)) \(unit) is not a whole number; \(unit) is counted in whole units."
                      : "\(text(line.received)) \(unit) has more than \(places) decimals.")
            }
            if let note = line.note {
                if note.utf8.count > GRNDraft.maxNoteBytes { error("the note is \(note.utf8.count) bytes; at most \(GRNDraft.maxNoteBytes).") }
                if note.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) { error("the note contains control characters.") }
            }
            let outstanding = max(ordered.ordered - ordered.received, 0)
            let received = line.received
            switch line.discrepancy {
            case .excess?:
                if received <= outstanding {
                    error("flagged excess, but \(text(received)) \(unit) is not more than the \(text(outstanding)) \(unit) outstanding.")
                }
            case .short?:
                if received >= outstanding {
                    error("flagged short, but \(text(received)) \(unit) covers the \(text(outstanding)) \(unit) outstanding.")
                }
            case .damaged?:
                if line.note == nil { error("flagged damaged without a note; say what is damaged (LINE=QTY:damaged:NOTE).") }
            case nil:
                if received > outstanding {
                    error("\(text(received)) \(unit) received but only \(text(outstanding)) \(unit) outstanding; flag the line as excess.")
                } else if received < outstanding {
                    result.suggestions.append(GRNIssue(lineNo: n, message:
                        "Line \(n): \(text(received)) of \(text(outstanding)) \(unit) outstanding received; if the rest is not coming, flag the line as short."))
                }
            }
        }
        return result
    }

    /// A quantity as people write it: `12`, not `12.0`.
    public static func text(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
