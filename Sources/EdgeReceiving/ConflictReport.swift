import EdgeContract
import EdgeStore

/// What changed, line by line, when the server's version of an order won over a confirmation
/// (RCV-3): built from the confirmation, the order it was made against and the 409's
/// `server_version`, so the operator sees every line that moved, not only the server's sentence.
public struct ConflictReport: Sendable, Hashable, Codable {
    public var poNumber: String
    public var statusBefore: String
    public var statusOnServer: String
    /// The server's own sentence (`changes`), when it gave one.
    public var serverSummary: String?
    public var lines: [ConflictLine]
    /// Unix seconds the conflict was recorded; it is kept 7 days.
    public var recordedAt: Double

    enum CodingKeys: String, CodingKey {
        case poNumber = "po_number"
        case statusBefore = "status_before"
        case statusOnServer = "status_on_server"
        case serverSummary = "server_summary"
        case lines
        case recordedAt = "recorded_at"
    }

    /// nil when the conflict's details carry no readable order (another server's 409 shape).
    public init?(record: GRNRecord, conflict: ConflictRecord) {
        guard let details = try? ContractCoding.decode(GRNConflictDetails.self, from: conflict.serverVersion) else { return nil }
        let server = details.serverVersion
        let before = record.orderBefore
        poNumber = server.poNumber
        statusBefore = before.status.rawValue
        statusOnServer = server.status.rawValue
        serverSummary = ReceivingClient.printable(details.changes)
        recordedAt = conflict.recordedAt
        lines = server.lines.map { line in
            let old = before.lines.first { $0.lineNo == line.lineNo }
            let mine = record.request.lines.first { $0.lineNo == line.lineNo }
            let q = GRNValidator.text
            var text = "Line \(line.lineNo) (\(ReceivingClient.printable(line.description))): "
            if let old, old.received != line.received {
                text += "received went from \(q(old.received)) to \(q(line.received)) of \(q(line.ordered)) \(line.unit) on the server"
            } else {
                text += "\(q(line.received)) of \(q(line.ordered)) \(line.unit) received on the server, unchanged"
            }
            if let mine {
                text += "; your \(q(mine.received)) \(line.unit) were not applied"
            }
            return ConflictLine(lineNo: line.lineNo, unit: line.unit, receivedBefore: old?.received, receivedOnServer: line.received,
                                ordered: line.ordered, confirmed: mine?.received, text: text + ".")
        }
    }

    /// One line for the terminal: the status (and its change); `lines` say what moved.
    public var summary: String {
        let status = statusBefore == statusOnServer ? "status \(statusOnServer)" : "status \(statusBefore) -> \(statusOnServer)"
        return "\(poNumber) was received on the server before this confirmation (\(status)); the server's version was kept and your confirmation was not applied."
    }
}
