import EdgeContract
import EdgeStore
import EdgeSync
import FoundationEssentials
import GRDB

/// The station's record of its GRN confirmations (RCV-2, RCV-3). A confirmation is written in
/// the same transaction as its outbox entry, so it is queued exactly once; its status follows the
/// outbox: `applied` from the delivered route (AGT-5), `conflict` and `rejected` from the
/// conflict log and dead letters (`reconcile`).
public struct GRNLedger: Sendable {
    public static let kind = "grn.confirm"
    /// Declared to the sync core and the push intake (`StationSchema.outboxKinds`): GRN
    /// confirmations go to `POST /api/grn/confirm` with the payload as the body, because that
    /// endpoint owns the RCV-3 conflict rule, and a delivered one tells the receiving team (RCV-7).
    public static let outboxKind = OutboxKind(name: kind, path: APIPath.grnConfirm, confirmsDelivery: true)

    public let database: EdgeDatabase

    public init(database: EdgeDatabase) {
        self.database = database
    }

    /// The outbox stream of an order: its confirmations are sent in order (SYN-3).
    public static func stream(_ poNumber: String) -> String { "po:" + poNumber }

    func insert(_ db: Database, key: String, request: GRNConfirmRequest, orderBefore: PurchaseOrder, offline: Bool,
                photos: [StoredPhoto], now: Double) throws {
        try db.execute(sql: """
            INSERT INTO receiving_grns (idempotency_key, po_number, payload, order_before, created_at, offline, status)
            VALUES (?, ?, ?, ?, ?, ?, 'queued')
            """, arguments: [key, request.poNumber, Data(try ContractCoding.encode(request)), Data(try ContractCoding.encode(orderBefore)),
                             now, offline])
        for photo in photos {
            try db.execute(sql: "INSERT OR IGNORE INTO receiving_grn_photos (idempotency_key, sha256) VALUES (?, ?)",
                           arguments: [key, photo.sha256])
        }
    }

    /// The delivered route (AGT-5): the backend applied the entry; runs in the settling transaction.
    public func delivered(_ db: Database, _ entry: OutboxEntry, now: Double) throws {
        try db.execute(sql: "UPDATE receiving_grns SET status = 'applied', settled_at = ? WHERE idempotency_key = ? AND status != 'applied'",
                       arguments: [now, entry.idempotencyKey])
    }

    /// Brings queued / rejected records in line with the conflict log and dead letters: the
    /// sender records those without a route, so they are read back here.
    @discardableResult
    public func reconcile(now: Double) throws(ReceivingError) -> Int {
        try perform("reconcile confirmations") {
            try database.dbWriter.write { db in
                try db.execute(sql: """
                    UPDATE receiving_grns SET status = 'conflict', settled_at = ?
                    WHERE status IN ('queued', 'rejected') AND idempotency_key IN (SELECT idempotency_key FROM conflicts)
                    """, arguments: [now])
                var changed = db.changesCount
                try db.execute(sql: """
                    UPDATE receiving_grns SET status = 'rejected', settled_at = ?
                    WHERE status = 'queued' AND idempotency_key IN (SELECT idempotency_key FROM dead_letters)
                    """, arguments: [now])
                changed += db.changesCount
                // Re-queued by hand (`edge sync requeue`): waiting again.
                try db.execute(sql: """
                    UPDATE receiving_grns SET status = 'queued', settled_at = NULL
                    WHERE status = 'rejected' AND idempotency_key IN (SELECT idempotency_key FROM outbox)
                    """)
                return changed + db.changesCount
            }
        }
    }

    public func record(_ key: String) throws(ReceivingError) -> GRNRecord? {
        try perform("read a confirmation") {
            try database.dbWriter.read { db in
                try Row.fetchOne(db, sql: "SELECT * FROM receiving_grns WHERE idempotency_key = ?", arguments: [key]).flatMap(Self.record)
            }
        }
    }

    /// Confirmations of `poNumber`, newest first.
    public func records(poNumber: String, limit: Int = 20) throws(ReceivingError) -> [GRNRecord] {
        try perform("read confirmations") {
            try database.dbWriter.read { db in
                try Row.fetchAll(db, sql: "SELECT * FROM receiving_grns WHERE po_number = ? ORDER BY created_at DESC LIMIT ?",
                                 arguments: [poNumber, max(1, min(limit, 200))]).compactMap(Self.record)
            }
        }
    }

    /// The last failure of the confirmation's outbox entry while it waits (one row by key, not
    /// the whole outbox).
    public func lastError(_ key: String) throws(ReceivingError) -> String? {
        try perform("read a queued confirmation") {
            try database.dbWriter.read { db in
                try String.fetchOne(db, sql: "SELECT last_error FROM outbox WHERE idempotency_key = ?", arguments: [key])
            }
        }
    }

    /// Why the backend refused the confirmation, from its dead letter.
    public func deadLetterReason(_ key: String) throws(ReceivingError) -> String? {
        try perform("read a refused confirmation") {
            try database.dbWriter.read { db in
                try String.fetchOne(db, sql: "SELECT reason FROM dead_letters WHERE idempotency_key = ? ORDER BY id DESC LIMIT 1", arguments: [key])
            }
        }
    }

    /// The conflict log's entry for a confirmation (kept 7 days, SYN-7), if it lost one.
    public func conflict(_ key: String) throws(ReceivingError) -> ConflictRecord? {
        do {
            return try Outbox(database: database).conflicts().last { $0.idempotencyKey == key }
        } catch {
            throw ReceivingError(.storeFailed, "The station's database failed to read the conflict log: \(error.message)")
        }
    }

    static func record(_ row: Row) -> GRNRecord? {
        let payload: Data = row["payload"]
        let before: Data = row["order_before"]
        guard let request = try? ContractCoding.decode(GRNConfirmRequest.self, from: [UInt8](payload)),
              let order = try? ContractCoding.decode(PurchaseOrder.self, from: [UInt8](before)),
              let status = GRNRecord.Status(rawValue: row["status"]) else { return nil }
        return GRNRecord(idempotencyKey: row["idempotency_key"], request: request, orderBefore: order, offline: row["offline"],
                         status: status, settledAt: row["settled_at"])
    }

    private func perform<T>(_ action: String, _ body: () throws -> T) throws(ReceivingError) -> T {
        do {
            return try body()
        } catch {
            throw ReceivingError(.storeFailed, "The station's database failed to \(action).",
                                 context: ["path": database.path, "error": String(describing: error)])
        }
    }
}
