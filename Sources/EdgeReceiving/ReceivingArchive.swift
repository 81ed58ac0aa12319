import EdgeStore
import FoundationEssentials
import GRDB

/// Receiving's section of the station export (issue #27 item 5; models/station-export.schema.json):
/// `orders` (the offline cache), `photos` (records; the files are copied beside the document,
/// see README) and `grns` (the ledger with the photos each names). Imported after the store's
/// rows: nothing of the store's carries receiving's ids.
///
/// Decision, matching: the later fetch of a cached order wins; photos are content-addressed
/// (SHA-256); a GRN is matched by idempotency key, and one with another order or payload here
/// refuses the import.
public struct ReceivingArchive: StationArchiveSection {
    public init() {}

    public let keys = ["orders", "photos", "grns"]
    public let importsFirst = false

    /// A cached purchase order (RCV-1): the contract's PurchaseOrder JSON as fetched.
    public struct OrderRow: Codable, Sendable, Equatable {
        public var poNumber: String
        public var payload: Data
        public var fetchedAt: Double

        enum CodingKeys: String, CodingKey {
            case payload
            case poNumber = "po_number", fetchedAt = "fetched_at"
        }
    }

    /// A photo's record (RCV-2); its bytes are the file `<photos>/<sha256>.jpg`, not in the document.
    public struct PhotoRow: Codable, Sendable, Equatable {
        public var sha256: String
        public var bytes: Int64
        public var width: Int
        public var height: Int
        public var createdAt: Double
        public var uploadedAt: Double?
        public var attempts: Int
        public var nextAttemptAt: Double
        public var lastError: String?

        enum CodingKeys: String, CodingKey {
            case sha256, bytes, width, height, attempts
            case createdAt = "created_at", uploadedAt = "uploaded_at", nextAttemptAt = "next_attempt_at", lastError = "last_error"
        }
    }

    /// A GRN confirmation in the ledger (RCV-2), keyed by its outbox entry's idempotency key.
    public struct GRNRow: Codable, Sendable, Equatable {
        public var idempotencyKey: String
        public var poNumber: String
        public var payload: Data
        public var orderBefore: Data
        public var createdAt: Double
        public var offline: Bool
        public var status: String
        public var settledAt: Double?
        public var photos: [String]

        enum CodingKeys: String, CodingKey {
            case payload, offline, status, photos
            case idempotencyKey = "idempotency_key", poNumber = "po_number", orderBefore = "order_before"
            case createdAt = "created_at", settledAt = "settled_at"
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            idempotencyKey = try c.decode(String.self, forKey: .idempotencyKey)
            poNumber = try c.decode(String.self, forKey: .poNumber)
            payload = try c.decode(Data.self, forKey: .payload)
            orderBefore = try c.decode(Data.self, forKey: .orderBefore)
            createdAt = try c.decode(Double.self, forKey: .createdAt)
            offline = try c.decode(Bool.self, forKey: .offline)
            status = try c.decode(String.self, forKey: .status)
            settledAt = try c.decodeIfPresent(Double.self, forKey: .settledAt)
            photos = try c.decodeList(.photos, max: StationArchiveLimits.maxNestedRows)
        }

        init(idempotencyKey: String, poNumber: String, payload: Data, orderBefore: Data, createdAt: Double, offline: Bool,
             status: String, settledAt: Double?, photos: [String]) {
            self.idempotencyKey = idempotencyKey; self.poNumber = poNumber; self.payload = payload; self.orderBefore = orderBefore
            self.createdAt = createdAt; self.offline = offline; self.status = status; self.settledAt = settledAt; self.photos = photos
        }
    }

    public func export(_ db: Database) throws -> [String: [ArchiveValue]] {
        let orders = try Row.fetchAll(db, sql: "SELECT * FROM receiving_orders ORDER BY po_number").map { r in
            OrderRow(poNumber: r["po_number"], payload: r["payload"], fetchedAt: r["fetched_at"])
        }
        let photos = try Row.fetchAll(db, sql: "SELECT * FROM receiving_photos ORDER BY sha256").map { r in
            PhotoRow(sha256: r["sha256"], bytes: r["bytes"], width: r["width"], height: r["height"], createdAt: r["created_at"],
                     uploadedAt: r["uploaded_at"], attempts: r["attempts"], nextAttemptAt: r["next_attempt_at"], lastError: r["last_error"])
        }
        let grnPhotos = Dictionary(grouping: try Row.fetchAll(db, sql: "SELECT * FROM receiving_grn_photos ORDER BY idempotency_key, sha256"),
                                   by: { (row: Row) -> String in row["idempotency_key"] })
        let grns = try Row.fetchAll(db, sql: "SELECT * FROM receiving_grns ORDER BY created_at, idempotency_key").map { r in
            let key: String = r["idempotency_key"]
            return GRNRow(idempotencyKey: key, poNumber: r["po_number"], payload: r["payload"], orderBefore: r["order_before"],
                          createdAt: r["created_at"], offline: r["offline"], status: r["status"], settledAt: r["settled_at"],
                          photos: (grnPhotos[key] ?? []).map { $0["sha256"] })
        }
        return ["orders": try ArchiveValue.list(orders), "photos": try ArchiveValue.list(photos), "grns": try ArchiveValue.list(grns)]
    }

    public func validate(_ archive: StationArchive) throws(StationArchiveError) {
        let orders: [OrderRow] = try archive.rows("orders")
        let grns: [GRNRow] = try archive.rows("grns")
        let photoRows: [PhotoRow] = try archive.rows("photos")
        guard Set(orders.map(\.poNumber)).count == orders.count else { throw StationImport.invalid("a PO number appears twice in the orders") }
        guard Set(grns.map(\.idempotencyKey)).count == grns.count else { throw StationImport.invalid("a GRN idempotency key appears twice") }
        let photos = Set(photoRows.map(\.sha256))
        guard photos.count == photoRows.count else { throw StationImport.invalid("a photo appears twice") }
        for photo in photos where !(photo.utf8.count == 64 && photo.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }) {
            throw StationImport.invalid("the photo name \(photo.prefix(80)) is not a lower-case SHA-256")
        }
        for grn in grns {
            for photo in grn.photos where !photos.contains(photo) {
                throw StationImport.invalid("GRN \(grn.idempotencyKey) names photo \(photo.prefix(80)), which the export does not carry")
            }
        }
    }

    public func apply(_ archive: StationArchive, _ db: Database, report: inout StationImportReport) throws -> (@Sendable (String) -> String)? {
        for order in try archive.rows("orders", as: OrderRow.self) {
            let fetched = try Double.fetchOne(db, sql: "SELECT fetched_at FROM receiving_orders WHERE po_number = ?", arguments: [order.poNumber])
            if let fetched, fetched >= order.fetchedAt {
                report.count("receiving_orders", inserted: false)
                continue
            }
            try db.execute(sql: """
                INSERT INTO receiving_orders (po_number, payload, fetched_at) VALUES (?, ?, ?)
                ON CONFLICT(po_number) DO UPDATE SET payload = excluded.payload, fetched_at = excluded.fetched_at
                """, arguments: [order.poNumber, order.payload, order.fetchedAt])
            report.count("receiving_orders", inserted: true)
        }
        for photo in try archive.rows("photos", as: PhotoRow.self) {
            try db.execute(sql: """
                INSERT OR IGNORE INTO receiving_photos (sha256, bytes, width, height, created_at, uploaded_at, attempts, next_attempt_at, last_error)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [photo.sha256, photo.bytes, photo.width, photo.height, photo.createdAt, photo.uploadedAt, photo.attempts,
                                 photo.nextAttemptAt, photo.lastError])
            report.count("receiving_photos", inserted: db.changesCount > 0)
        }
        for grn in try archive.rows("grns", as: GRNRow.self) {
            if let present = try Row.fetchOne(db, sql: "SELECT po_number, payload FROM receiving_grns WHERE idempotency_key = ?",
                                              arguments: [grn.idempotencyKey]) {
                guard present["po_number"] == grn.poNumber, (present["payload"] as Data) == grn.payload else {
                    throw StationImport.conflict("the GRN with idempotency key \(grn.idempotencyKey) has another order or payload here")
                }
                report.count("receiving_grns", inserted: false)
                continue
            }
            try db.execute(sql: """
                INSERT INTO receiving_grns (idempotency_key, po_number, payload, order_before, created_at, offline, status, settled_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [grn.idempotencyKey, grn.poNumber, grn.payload, grn.orderBefore, grn.createdAt, grn.offline, grn.status, grn.settledAt])
            report.count("receiving_grns", inserted: true)
            for photo in grn.photos {
                try db.execute(sql: "INSERT OR IGNORE INTO receiving_grn_photos (idempotency_key, sha256) VALUES (?, ?)",
                               arguments: [grn.idempotencyKey, photo])
            }
        }
        return nil
    }
}
