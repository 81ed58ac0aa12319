import EdgeContract

/// `edge receive PO-... --confirm --json` (models/receive-confirmation.schema.json): what was
/// confirmed, against which copy of the order, and where it stands.
public struct ConfirmationDocument: Sendable, Encodable {
    public var poNumber: String
    public var idempotencyKey: String
    /// applied, queued, conflict or rejected.
    public var outcome: String
    /// Confirmed from the cached order while the backend could not be reached.
    public var offline: Bool
    public var confirmedAt: String
    public var lines: [GRNLine]
    public var photos: [StoredPhoto]
    public var suggestions: [GRNIssue]
    /// queued: why it is still waiting; rejected: the backend's reason.
    public var reason: String?
    /// conflict: what changed, line by line (RCV-3).
    public var conflict: ConflictReport?
    public var message: String

    enum CodingKeys: String, CodingKey {
        case poNumber = "po_number"
        case idempotencyKey = "idempotency_key"
        case outcome, offline
        case confirmedAt = "confirmed_at"
        case lines, photos, suggestions, reason, conflict, message
    }

    public init(_ confirmation: GRNConfirmation, outcome: GRNOutcome, photos: [StoredPhoto]) {
        poNumber = confirmation.request.poNumber
        idempotencyKey = confirmation.idempotencyKey
        self.outcome = outcome.name
        offline = confirmation.offline
        confirmedAt = confirmation.request.confirmedAt
        lines = confirmation.request.lines
        self.photos = photos
        suggestions = confirmation.suggestions
        switch outcome {
        case .applied:
            message = "\(poNumber): the GRN was applied by the backend."
        case .queued(let why):
            reason = why
            message = "\(poNumber): the GRN is queued and will be sent once, when the backend can be reached (\(why))."
        case .conflict(let report):
            conflict = report
            message = report?.summary ?? "\(poNumber) changed on the server; the server's version was kept and this GRN was not applied."
        case .rejected(let why):
            reason = why
            message = "\(poNumber): the backend refused the GRN (\(why)); it is kept as a dead letter (`edge sync status`)."
        }
    }

    public var text: [String] {
        var out = [message]
        if offline { out.append("Confirmed from the cached order (offline).") }
        for suggestion in suggestions { out.append("note: " + suggestion.message) }
        for photo in photos {
            out.append("photo \(photo.sha256.prefix(16)) \(photo.width)x\(photo.height) \(photo.bytes) bytes" + (photo.uploadedAt == nil ? ", upload pending" : ", uploaded"))
        }
        if let conflict {
            if let summary = conflict.serverSummary { out.append("server: " + summary) }
            out += conflict.lines.map { "  " + $0.text }
        }
        return out
    }
}
