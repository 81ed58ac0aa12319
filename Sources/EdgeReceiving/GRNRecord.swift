import EdgeContract

/// A confirmation as this station keeps it (RCV-2): what was sent, against which order, and
/// where it stands.
public struct GRNRecord: Sendable, Hashable {
    public enum Status: String, Sendable, Hashable, Codable {
        /// In the outbox, waiting to be sent or for an answer.
        case queued
        /// The backend applied it (2xx, a replay of an applied key included).
        case applied
        /// The backend answered 409: the server's version won (RCV-3).
        case conflict
        /// The backend refused it for good (another 4xx): a dead letter, visible in `edge sync status`.
        case rejected
    }

    public let idempotencyKey: String
    public let request: GRNConfirmRequest
    /// The order as the operator saw it when confirming.
    public let orderBefore: PurchaseOrder
    /// Confirmed while the backend could not be reached (from the cached order).
    public let offline: Bool
    public let status: Status
    /// Unix seconds of the status change that settled it.
    public let settledAt: Double?
}
