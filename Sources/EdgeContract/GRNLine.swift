/// One line of a goods receipt: what arrived in this delivery for one PO line.
public struct GRNLine: Sendable, Hashable, Codable {
    public enum Discrepancy: String, Sendable, Hashable, Codable, CaseIterable {
        case short, excess, damaged
    }

    public var lineNo: Int
    /// Received in this delivery (not the running total), never negative. More than the line
    /// still has outstanding must be flagged `excess` (RCV-2).
    public var received: Double
    public var discrepancy: Discrepancy?
    public var note: String?

    public init(lineNo: Int, received: Double, discrepancy: Discrepancy? = nil, note: String? = nil) {
        self.lineNo = lineNo
        self.received = received
        self.discrepancy = discrepancy
        self.note = note
    }

    enum CodingKeys: String, CodingKey {
        case lineNo = "line_no"
        case received, discrepancy, note
    }
}
