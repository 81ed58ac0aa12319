import FoundationEssentials
import GRDB

/// One camera read kept by the station (AGT-4), as stored.
public struct ScanEvent: Sendable, Equatable, Codable {
    public var id: Int64?
    public var camera: String
    /// Unix seconds when the frame was dequeued.
    public var capturedAt: Double
    public var symbology: String
    public var className: String
    public var valid: Bool
    /// Frame dequeued to the event's row written, in milliseconds (SCN-8).
    public var latencyMs: Double
    /// A keyed hash of the payload (hex): the same code gives the same key on this station only.
    public var payloadKey: String?
    /// The decoded text; nil for linking codes, which are never stored (ENR-8).
    public var text: String?
    /// What may be shown: the text, or a linking code masked.
    public var masked: String
    /// `keep` or `sync` (ScanEventPolicy).
    public var action: String
    /// The outbox entry written in the same transaction, when the class syncs.
    public var outboxID: Int64?

    public init(camera: String, capturedAt: Double, symbology: String, className: String, valid: Bool, latencyMs: Double,
                payloadKey: String?, text: String?, masked: String, action: String) {
        self.camera = camera
        self.capturedAt = capturedAt
        self.symbology = symbology
        self.className = className
        self.valid = valid
        self.latencyMs = latencyMs
        self.payloadKey = payloadKey
        self.text = text
        self.masked = masked
        self.action = action
    }

    init(row: Row) {
        id = row["id"]
        camera = row["camera"]
        capturedAt = row["captured_at"]
        symbology = row["symbology"]
        className = row["class"]
        valid = row["valid"]
        latencyMs = row["latency_ms"]
        payloadKey = row["payload_key"]
        text = row["text"]
        masked = row["masked"]
        action = row["action"]
        outboxID = row["outbox_id"]
    }
}

/// The scan events table (AGT-4). Events are written inside the caller's transaction, together
/// with their outbox entry, so a crash keeps both or neither (AGT-8).
public struct ScanEventLog: Sendable {
    /// Decision: events are kept 30 days, then purged as new ones arrive; the backend holds the
    /// synced ones, and a month covers any question an operator asks of the station itself.
    public static let retention: Double = 30 * 24 * 3600

    public let database: EdgeDatabase

    public init(database: EdgeDatabase) {
        self.database = database
    }

    /// Inserts `event` in the caller's transaction; returns its id. Every 500th insert purges
    /// events past the retention, so the table stays bounded without a timer.
    public func insert(_ db: Database, _ event: ScanEvent) throws -> Int64 {
        try db.execute(sql: """
            INSERT INTO scan_events (camera, captured_at, symbology, class, valid, latency_ms, payload_key, text, masked, action, outbox_id)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [event.camera, event.capturedAt, event.symbology, event.className, event.valid, event.latencyMs,
                             event.payloadKey, event.text, event.masked, event.action, event.outboxID])
        let id = db.lastInsertedRowID
        if id % 500 == 0 {
            try db.execute(sql: "DELETE FROM scan_events WHERE captured_at < ?", arguments: [event.capturedAt - Self.retention])
        }
        return id
    }

    /// Links an event to the outbox entry written for it (same transaction).
    public func setOutboxID(_ db: Database, event id: Int64, outboxID: Int64) throws {
        try db.execute(sql: "UPDATE scan_events SET outbox_id = ? WHERE id = ?", arguments: [outboxID, id])
    }

    /// The newest events first.
    public func recent(limit: Int = 20) throws(StoreError) -> [ScanEvent] {
        try database.perform("read scan events") {
            try database.dbWriter.read { db in
                try Row.fetchAll(db, sql: "SELECT * FROM scan_events ORDER BY id DESC LIMIT ?", arguments: [max(0, min(limit, 1000))])
                    .map(ScanEvent.init(row:))
            }
        }
    }

    /// Events after `id`, oldest first (a live view resuming where it was).
    public func events(after id: Int64, limit: Int = 50) throws(StoreError) -> [ScanEvent] {
        try database.perform("read scan events") {
            try database.dbWriter.read { db in
                try Row.fetchAll(db, sql: "SELECT * FROM scan_events WHERE id > ? ORDER BY id LIMIT ?", arguments: [id, max(0, min(limit, 1000))])
                    .map(ScanEvent.init(row:))
            }
        }
    }

    public func count() throws(StoreError) -> Int {
        try database.perform("count scan events") {
            try database.dbWriter.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM scan_events") ?? 0 }
        }
    }
}
