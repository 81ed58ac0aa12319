import EdgeStore
import GRDB

/// The receiving dock's tables (RCV-1..3): receiving's own migration "v7", which every station
/// database carries (`StationSchema` in EdgeStation lists it for every opener). EdgeReceiving
/// owns every query.
public enum ReceivingSchema {
    /// "v7": the name it shipped under when the schema lived in EdgeStore; never renamed.
    public static let migration = SchemaMigration("v7") { db in try create(db) }

    /// RCV-8, RCV-9: receipts in progress (`ReceiptStore`) and the vendor names the dock learned
    /// (`VendorNames`), added after the enrollment hold kinds.
    public static let receipts = SchemaMigration("receiving-receipts") { db in
        try db.execute(sql: """
            -- One receipt in progress per order; revision moves with every change.
            CREATE TABLE receiving_receipts (
                po_number TEXT PRIMARY KEY,
                started_at REAL NOT NULL,
                updated_at REAL NOT NULL,
                revision INTEGER NOT NULL
            );
            -- The lines the operator touched; received NULL until counted or typed.
            CREATE TABLE receiving_receipt_lines (
                po_number TEXT NOT NULL REFERENCES receiving_receipts(po_number) ON DELETE CASCADE,
                line_no INTEGER NOT NULL,
                received REAL,
                discrepancy TEXT,
                note TEXT,
                PRIMARY KEY (po_number, line_no)
            );
            -- Every scan that counted, for undo (before: the line's quantity before it).
            CREATE TABLE receiving_receipt_counts (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                po_number TEXT NOT NULL REFERENCES receiving_receipts(po_number) ON DELETE CASCADE,
                line_no INTEGER NOT NULL,
                quantity REAL NOT NULL,
                before REAL,
                code TEXT NOT NULL,
                source TEXT NOT NULL,
                counted_at REAL NOT NULL
            );
            CREATE INDEX receiving_receipt_counts_po ON receiving_receipt_counts(po_number, id);
            -- Photos taken for the receipt: the JPEG is already <photo dir>/<sha256>.jpg; the row
            -- in receiving_photos (and the upload) comes with the GRN.
            CREATE TABLE receiving_receipt_photos (
                po_number TEXT NOT NULL REFERENCES receiving_receipts(po_number) ON DELETE CASCADE,
                sha256 TEXT NOT NULL,
                bytes INTEGER NOT NULL,
                width INTEGER NOT NULL,
                height INTEGER NOT NULL,
                taken_at REAL NOT NULL,
                PRIMARY KEY (po_number, sha256)
            );
            -- VendorNames: what the dock learned of vendors' names (a cache).
            CREATE TABLE receiving_vendor_names (
                vendor_id TEXT PRIMARY KEY,
                name TEXT NOT NULL,
                fetched_at REAL NOT NULL
            );
            """)
    }

    /// RCV-10: the GS1 data a count was scanned with (batch/lot, expiry as an ISO date, serial),
    /// added after "receiving-receipts" shipped on stations.
    public static let receiptTracking = SchemaMigration("receiving-receipt-tracking") { db in
        try db.execute(sql: """
            ALTER TABLE receiving_receipt_counts ADD COLUMN lot TEXT;
            ALTER TABLE receiving_receipt_counts ADD COLUMN expiry TEXT;
            ALTER TABLE receiving_receipt_counts ADD COLUMN serial TEXT;
            CREATE INDEX receiving_receipt_counts_serial ON receiving_receipt_counts(po_number, serial) WHERE serial IS NOT NULL;
            """)
    }

    static func create(_ db: Database) throws {
        try db.execute(sql: """
            -- RCV-1: orders as last fetched (lookup or pulled change), for offline use. payload is
            -- the contract's PurchaseOrder JSON; fetched_at Unix seconds of this station's clock.
            CREATE TABLE receiving_orders (
                po_number TEXT PRIMARY KEY,
                payload BLOB NOT NULL,
                fetched_at REAL NOT NULL
            );
            CREATE INDEX receiving_orders_fetched ON receiving_orders(fetched_at);

            -- RCV-2: one row per confirmation, keyed by its outbox entry's idempotency key.
            -- status: queued (in the outbox), applied (delivered 2xx), conflict (409, RCV-3),
            -- rejected (dead-lettered). order_before is the order the operator confirmed against.
            CREATE TABLE receiving_grns (
                idempotency_key TEXT PRIMARY KEY,
                po_number TEXT NOT NULL,
                payload BLOB NOT NULL,
                order_before BLOB NOT NULL,
                created_at REAL NOT NULL,
                offline INTEGER NOT NULL,
                status TEXT NOT NULL,
                settled_at REAL
            );
            CREATE INDEX receiving_grns_status ON receiving_grns(status, settled_at);

            -- RCV-2: photo evidence, stored once by SHA-256 (the file is <photo dir>/<sha256>.jpg).
            CREATE TABLE receiving_photos (
                sha256 TEXT PRIMARY KEY,
                bytes INTEGER NOT NULL,
                width INTEGER NOT NULL,
                height INTEGER NOT NULL,
                created_at REAL NOT NULL,
                uploaded_at REAL,
                attempts INTEGER NOT NULL DEFAULT 0,
                next_attempt_at REAL NOT NULL,
                last_error TEXT
            );
            CREATE INDEX receiving_photos_due ON receiving_photos(uploaded_at, next_attempt_at);

            CREATE TABLE receiving_grn_photos (
                idempotency_key TEXT NOT NULL REFERENCES receiving_grns(idempotency_key) ON DELETE CASCADE,
                sha256 TEXT NOT NULL REFERENCES receiving_photos(sha256),
                PRIMARY KEY (idempotency_key, sha256)
            );
            CREATE INDEX receiving_grn_photos_sha ON receiving_grn_photos(sha256);
            """)
    }
}
