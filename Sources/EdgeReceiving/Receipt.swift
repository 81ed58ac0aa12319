import EdgeAgent
import EdgeContract

/// A receipt in progress (RCV-8): what the operator has counted, typed, flagged and noted for one
/// order, as the station database holds it between the first entry and the confirmation (or the
/// operator's "Discard"). One per order at a time. Also a fact on the station's stream after
/// every committed change, so every open screen shows the same receipt.
public struct Receipt: StationFact, Hashable, Codable {
    public struct Line: Sendable, Hashable, Codable {
        public var lineNo: Int
        /// Received in this delivery so far; nil until counted or typed.
        public var received: Double?
        public var discrepancy: GRNLine.Discrepancy?
        public var note: String?
        /// The GS1 data of every count on the line (RCV-10), as the GRN sends it; nil when none
        /// carried any.
        public var tracking: [GRNLine.Tracking]?

        public init(lineNo: Int, received: Double? = nil, discrepancy: GRNLine.Discrepancy? = nil, note: String? = nil,
                    tracking: [GRNLine.Tracking]? = nil) {
            self.lineNo = lineNo
            self.received = received
            self.discrepancy = discrepancy
            self.note = note
            self.tracking = tracking
        }

        enum CodingKeys: String, CodingKey {
            case received, discrepancy, note, tracking
            case lineNo = "line_no"
        }
    }

    /// One scan that counted (RCV-9), the newest first in `counts`: what undo takes back.
    public struct Count: Sendable, Hashable, Codable {
        public var id: Int64
        public var lineNo: Int
        public var quantity: Double
        /// The code as scanned (an item code, never a secret).
        public var code: String
        /// The camera's name, or `keyboard` for the wedge and typed codes.
        public var source: String
        public var countedAt: Double
        /// GS1 data the code carried (RCV-10).
        public var lot: String?
        public var expiry: String?
        public var serial: String?

        enum CodingKeys: String, CodingKey {
            case id, quantity, code, source, lot, expiry, serial
            case lineNo = "line_no", countedAt = "counted_at"
        }
    }

    public var poNumber: String
    public var startedAt: Double
    public var updatedAt: Double
    /// Increases with every change: a confirmation names the revision it saw, so a receipt
    /// changed in another screen meanwhile is not confirmed unseen, and none is confirmed twice.
    public var revision: Int
    /// The lines the operator touched, by line number.
    public var lines: [Line]
    /// The last counts, newest first (at most `ReceiptStore.countsShown`).
    public var counts: [Count]
    /// Photo evidence taken for it, oldest first (on disk already; attached to the GRN).
    public var photos: [StoredPhoto]

    public init(poNumber: String, startedAt: Double, updatedAt: Double, revision: Int, lines: [Line], counts: [Count], photos: [StoredPhoto] = []) {
        self.poNumber = poNumber
        self.startedAt = startedAt
        self.updatedAt = updatedAt
        self.revision = revision
        self.lines = lines
        self.counts = counts
        self.photos = photos
    }

    public func line(_ lineNo: Int) -> Line? { lines.first { $0.lineNo == lineNo } }

    /// The lines with a quantity, as the GRN sends them (untouched lines were not in this
    /// delivery).
    public var grnLines: [GRNLine] {
        lines.compactMap { line in
            line.received.map { GRNLine(lineNo: line.lineNo, received: $0, discrepancy: line.discrepancy, note: line.note, tracking: line.tracking) }
        }
    }

    enum CodingKeys: String, CodingKey {
        case revision, lines, counts, photos
        case poNumber = "po_number", startedAt = "started_at", updatedAt = "updated_at"
    }
}

/// The receipt for an order was confirmed (it became the GRN) or discarded: screens showing it
/// drop it.
public struct ReceiptClosed: StationFact, Hashable {
    public enum Reason: String, Sendable, Hashable { case confirmed, discarded }
    public let poNumber: String
    public let reason: Reason

    public init(poNumber: String, reason: Reason) {
        self.poNumber = poNumber
        self.reason = reason
    }
}
