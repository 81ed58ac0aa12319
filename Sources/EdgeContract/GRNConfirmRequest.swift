/// `POST /api/grn/confirm` (RCV-2): the goods receipt for one purchase order, sent under its
/// outbox entry's `Idempotency-Key` so a retried confirmation is applied once.
public struct GRNConfirmRequest: Sendable, Hashable, Codable {
    public var poNumber: String
    /// When the operator confirmed, local wall-clock time with UTC offset (SYN-10); a GRN queued
    /// offline keeps this time, not the time it was sent.
    public var confirmedAt: String
    public var lines: [GRNLine]
    public var photos: [GRNPhoto]

    public init(poNumber: String, confirmedAt: String, lines: [GRNLine], photos: [GRNPhoto] = []) {
        self.poNumber = poNumber
        self.confirmedAt = confirmedAt
        self.lines = lines
        self.photos = photos
    }

    enum CodingKeys: String, CodingKey {
        case poNumber = "po_number"
        case confirmedAt = "confirmed_at"
        case lines, photos
    }
}
