import EdgeStore
import GRDB

/// Reads the camera scan events the agent recorded (AGT-4) that the dock looks up: valid PO
/// labels, vendor cards, material and product labels, newer than the last one seen. The agent records every read in the
/// database in one transaction with its outbox entry; reading them back from there means the
/// kiosk sees exactly what was recorded, without a second path from the cameras.
struct DockScanWatcher: Sendable {
    struct Scan: Sendable, Hashable {
        let id: Int64
        let camera: String
        let className: String
        let text: String
        let capturedAt: Double
    }

    /// Per poll; the rest come at the next.
    static let batch = 20

    let database: EdgeDatabase

    /// The newest event's id: the watcher starts after it (a restart does not replay old reads).
    func newestID() throws -> Int64 {
        try database.dbWriter.read { db in try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM scan_events") ?? 0 }
    }

    func scans(after id: Int64) throws -> [Scan] {
        try database.dbWriter.read { db in
            try Row.fetchAll(db, sql: """
                SELECT id, camera, class, text, captured_at FROM scan_events
                WHERE id > ? AND valid = 1 AND text IS NOT NULL AND class IN ('purchase-order', 'vendor', 'material', 'product')
                ORDER BY id LIMIT ?
                """, arguments: [id, Self.batch]).map { row in
                Scan(id: row["id"], camera: row["camera"], className: row["class"], text: row["text"], capturedAt: row["captured_at"])
            }
        }
    }
}
