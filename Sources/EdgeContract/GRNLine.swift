/// One line of a goods receipt: what arrived in this delivery for one PO line.
public struct GRNLine: Sendable, Hashable, Codable {
    public enum Discrepancy: String, Sendable, Hashable, Codable, CaseIterable {
        case short, excess, damaged
    }

    /// GS1 data read from the items counted on the line (RCV-10): how many came with one batch/lot,
    /// expiry and serial. Items counted without GS1 data, or typed, have no entry, so the entries'
    /// quantities add up to at most `received`.
    public struct Tracking: Sendable, Hashable, Codable {
        /// AI (10), at most 20 characters.
        public var lot: String?
        /// AI (17) as an ISO date (`2027-03-31`; GS1's day 00 is the month's last day).
        public var expiry: String?
        /// AI (21), at most 20 characters; one item per serial.
        public var serial: String?
        public var quantity: Double

        public init(lot: String? = nil, expiry: String? = nil, serial: String? = nil, quantity: Double) {
            self.lot = lot
            self.expiry = expiry
            self.serial = serial
            self.quantity = quantity
        }

        /// Hostile-input bound for lot and serial (GS1 allows 20 characters for both).
        public static let maxText = 20
    }

    public var lineNo: Int
    /// Received in this delivery (not the running total), never negative. More than the line
    /// still has outstanding must be flagged `excess` (RCV-2).
    public var received: Double
    public var discrepancy: Discrepancy?
    public var note: String?
    /// Absent when nothing on the line was scanned with GS1 data (the GRN of a station that
    /// never reads GS1 is what it always was).
    public var tracking: [Tracking]?

    public init(lineNo: Int, received: Double, discrepancy: Discrepancy? = nil, note: String? = nil, tracking: [Tracking]? = nil) {
        self.lineNo = lineNo
        self.received = received
        self.discrepancy = discrepancy
        self.note = note
        self.tracking = tracking
    }

    enum CodingKeys: String, CodingKey {
        case lineNo = "line_no"
        case received, discrepancy, note, tracking
    }
}
