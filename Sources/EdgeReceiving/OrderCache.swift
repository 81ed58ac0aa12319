import EdgeContract
import EdgeStore
import FoundationEssentials
import GRDB

/// Orders as last fetched, for offline use (RCV-1): written by every online lookup and by pulled
/// `PO_UPDATED` changes (AGT-5), read when the backend cannot be reached.
public struct OrderCache: Sendable {
    /// Decision: the cache holds at most this many orders; the least recently fetched go first.
    /// A dock sees tens of orders a day, so this is months of them, and the table stays small.
    public static let maxOrders = 5000

    public let database: EdgeDatabase

    public init(database: EdgeDatabase) {
        self.database = database
    }

    /// Stores `order` as fetched at `now`, in the caller's transaction.
    public func store(_ db: Database, _ order: PurchaseOrder, now: Double) throws {
        try db.execute(sql: """
            INSERT INTO receiving_orders (po_number, payload, fetched_at) VALUES (?, ?, ?)
            ON CONFLICT(po_number) DO UPDATE SET payload = excluded.payload, fetched_at = excluded.fetched_at
            """, arguments: [order.poNumber, Data(try ContractCoding.encode(order)), now])
        let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM receiving_orders") ?? 0
        if count > Self.maxOrders {
            try db.execute(sql: """
                DELETE FROM receiving_orders WHERE po_number IN
                  (SELECT po_number FROM receiving_orders ORDER BY fetched_at LIMIT ?)
                """, arguments: [count - Self.maxOrders])
        }
    }

    public func store(_ order: PurchaseOrder, now: Double) throws(ReceivingError) {
        try perform("cache \(order.poNumber)") { try database.dbWriter.write { db in try store(db, order, now: now) } }
    }

    public func cached(_ db: Database, _ poNumber: String) throws -> CachedOrder? {
        guard let row = try Row.fetchOne(db, sql: "SELECT payload, fetched_at FROM receiving_orders WHERE po_number = ?",
                                         arguments: [poNumber]) else { return nil }
        let payload: Data = row["payload"]
        // Our own row; one that no longer decodes is treated as never cached, not as a failure.
        guard let order = try? ContractCoding.decode(PurchaseOrder.self, from: [UInt8](payload)) else { return nil }
        return CachedOrder(order: order, fetchedAt: row["fetched_at"])
    }

    public func cached(_ poNumber: String) throws(ReceivingError) -> CachedOrder? {
        try perform("read the cached \(poNumber)") { try database.dbWriter.read { db in try cached(db, poNumber) } }
    }

    /// Applies pulled `PO_UPDATED` changes (AGT-5) in the pull's transaction. A change whose
    /// payload is not an order is skipped: the page is the backend's, and one bad change must not
    /// stop the others (or the push notifications in the same page) from being applied.
    @discardableResult
    public func apply(_ db: Database, _ changes: [SyncChange], now: Double) throws -> Int {
        var applied = 0
        for change in changes {
            guard let bytes = try? ContractCoding.encode(change.payload),
                  let order = try? ContractCoding.decode(PurchaseOrder.self, from: bytes) else { continue }
            try store(db, order, now: now)
            applied += 1
        }
        return applied
    }

    func perform<T>(_ action: String, _ body: () throws -> T) throws(ReceivingError) -> T {
        do {
            return try body()
        } catch {
            throw ReceivingError(.storeFailed, "The station's database failed to \(action).",
                                 context: ["path": database.path, "error": String(describing: error)])
        }
    }
}
