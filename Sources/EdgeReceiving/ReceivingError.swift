import EdgeCore

/// EdgeReceiving's error: a code to branch on (exit statuses, the kiosk), one line for the
/// operator, context with PO numbers, line numbers and counts, never a token or photo bytes.
public typealias ReceivingError = CodedError<ReceivingErrorCode>

public enum ReceivingErrorCode: String, Sendable, Hashable, CaseIterable {
    /// The text is not a PO number, material code, GTIN or vendor card.
    case invalidInput = "invalid-input"
    /// An EAN-13 whose check digit does not match (RCV-6).
    case badCheckDigit = "bad-check-digit"
    /// A vendor card of another tenant (RCV-4); nothing was sent.
    case wrongTenant = "wrong-tenant"
    /// The backend knows nothing under this value.
    case notFound = "not-found"
    /// The backend could not be reached (or answered 5xx / 408 / 429) and no cached copy exists.
    case notAvailableOffline = "not-available-offline"
    /// The backend refused the station (401 / 403): the token must be fixed.
    case unauthorized
    /// The backend answered something the contract does not allow.
    case invalidAnswer = "invalid-answer"
    /// A GRN draft breaks the RCV-2 rules; the message says which line and why.
    case invalidQuantity = "invalid-quantity"
    /// The photo could not be captured, read or encoded.
    case photoFailed = "photo-failed"
    /// The receiving section of edge.json is missing something the action needs.
    case notConfigured = "not-configured"
    /// The local database or photo directory failed.
    case storeFailed = "store-failed"
    /// A scanned item is not on the open order (RCV-9); the order stays open.
    case notOnOrder = "not-on-order"
    /// The receipt changed (another screen) or was confirmed or discarded since the screen read
    /// it (RCV-8): nothing was done; the screen shows the receipt as it is now.
    case receiptChanged = "receipt-changed"
    /// A serial number already counted on this receipt (RCV-10): one serial is one item, so a
    /// second scan of it is the same item again and is not counted.
    case alreadyCounted = "already-counted"
}
