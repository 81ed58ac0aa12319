import GRDB

/// The schema, as versioned migrations. Never edit a registered migration: the store's own run
/// first ("v1".."v5", "v8"), then the capabilities' (`SchemaMigration`, e.g. enrollment's "v6" and
/// receiving's "v7"), once per database, in the order the opener gives them.
enum StoreMigrations {
    static func migrator(_ capabilities: [SchemaMigration]) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            // AUTOINCREMENT so local ids are never reused: logs and `edge sync status` stay unambiguous.
            // created_at is the local wall-clock time with its offset (sent to the server, SYN-10);
            // scheduling times are REAL Unix seconds so they compare numerically.
            try db.execute(sql: """
                CREATE TABLE outbox (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    stream TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    payload BLOB NOT NULL,
                    idempotency_key TEXT NOT NULL UNIQUE,
                    sequence INTEGER NOT NULL UNIQUE,
                    created_at TEXT NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    next_attempt_at REAL NOT NULL,
                    lease_owner TEXT,
                    lease_expires_at REAL,
                    last_error TEXT
                );
                -- The head of each stream (lowest sequence) is found through this index (SYN-3).
                CREATE INDEX outbox_stream_sequence ON outbox(stream, sequence);

                CREATE TABLE dead_letters (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    stream TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    payload BLOB NOT NULL,
                    idempotency_key TEXT NOT NULL UNIQUE,
                    sequence INTEGER NOT NULL UNIQUE,
                    created_at TEXT NOT NULL,
                    attempts INTEGER NOT NULL,
                    last_error TEXT,
                    reason TEXT NOT NULL,
                    dead_at REAL NOT NULL
                );

                CREATE TABLE conflicts (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    stream TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    payload BLOB NOT NULL,
                    idempotency_key TEXT NOT NULL,
                    sequence INTEGER NOT NULL,
                    created_at TEXT NOT NULL,
                    attempts INTEGER NOT NULL,
                    server_version BLOB NOT NULL,
                    recorded_at REAL NOT NULL
                );
                CREATE INDEX conflicts_recorded_at ON conflicts(recorded_at);

                -- A counter of its own, not MAX(sequence): deleted entries must never give their
                -- number back (SYN-2).
                CREATE TABLE sequence_counter (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    next_value INTEGER NOT NULL
                );
                INSERT INTO sequence_counter (id, next_value) VALUES (1, 1);

                CREATE TABLE sync_cursors (
                    stream TEXT NOT NULL,
                    scope TEXT NOT NULL DEFAULT '',
                    cursor TEXT NOT NULL,
                    updated_at REAL NOT NULL,
                    PRIMARY KEY (stream, scope)
                );

                CREATE TABLE exchanges (
                    direction TEXT PRIMARY KEY CHECK (direction IN ('push', 'pull')),
                    succeeded_at REAL NOT NULL
                );
                """)
        }
        migrator.registerMigration("v2") { db in
            // The sender's own state, and which credential authenticates an entry: an enrollment's
            // entries are held while its token is revoked or its study start is pending (ENR-10,
            // ENR-13) without blocking the station's other streams.
            try db.execute(sql: """
                ALTER TABLE outbox ADD COLUMN credential TEXT;
                ALTER TABLE dead_letters ADD COLUMN credential TEXT;
                ALTER TABLE conflicts ADD COLUMN credential TEXT;

                -- Entries whose credential is listed here are not leased (nothing is deleted).
                CREATE TABLE credential_holds (
                    credential TEXT PRIMARY KEY,
                    reason TEXT NOT NULL,
                    since REAL NOT NULL
                );

                -- One row: what `edge sync status` reports about the sender (SYN-7 pause, 426).
                CREATE TABLE sender_state (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    consecutive_failures INTEGER NOT NULL DEFAULT 0,
                    paused_until REAL,
                    pause_reason TEXT,
                    last_failure TEXT,
                    last_failure_at REAL,
                    upgrade_required_version TEXT,
                    upgrade_message TEXT,
                    updated_at REAL NOT NULL DEFAULT 0
                );
                INSERT INTO sender_state (id) VALUES (1);

                -- What the SYN-4 limit counts (outbox entries and dead letters), kept by triggers
                -- so checking room at enqueue costs one row read, not a scan of the queue.
                CREATE TABLE usage_counter (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    entries INTEGER NOT NULL,
                    bytes INTEGER NOT NULL
                );
                INSERT INTO usage_counter (id, entries, bytes)
                    SELECT 1, (SELECT COUNT(*) FROM outbox) + (SELECT COUNT(*) FROM dead_letters),
                              (SELECT IFNULL(SUM(LENGTH(payload)), 0) FROM outbox) + (SELECT IFNULL(SUM(LENGTH(payload)), 0) FROM dead_letters);
                CREATE TRIGGER outbox_usage_insert AFTER INSERT ON outbox BEGIN
                    UPDATE usage_counter SET entries = entries + 1, bytes = bytes + LENGTH(NEW.payload) WHERE id = 1;
                END;
                CREATE TRIGGER outbox_usage_delete AFTER DELETE ON outbox BEGIN
                    UPDATE usage_counter SET entries = entries - 1, bytes = bytes - LENGTH(OLD.payload) WHERE id = 1;
                END;
                CREATE TRIGGER dead_letters_usage_insert AFTER INSERT ON dead_letters BEGIN
                    UPDATE usage_counter SET entries = entries + 1, bytes = bytes + LENGTH(NEW.payload) WHERE id = 1;
                END;
                CREATE TRIGGER dead_letters_usage_delete AFTER DELETE ON dead_letters BEGIN
                    UPDATE usage_counter SET entries = entries - 1, bytes = bytes - LENGTH(OLD.payload) WHERE id = 1;
                END;

                -- Changes pulled from the backend (SYN-9), stored with the cursor that covers
                -- them; the capabilities that own each kind consume them from here.
                CREATE TABLE pulled_changes (
                    change_id TEXT PRIMARY KEY,
                    stream TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    payload BLOB NOT NULL,
                    changed_at TEXT NOT NULL,
                    received_at REAL NOT NULL
                );
                """)
        }
        migrator.registerMigration("v3") { db in
            try PushSchema.create(db)
        }
        migrator.registerMigration("v4") { db in
            // The push sender reads what is due in id order from a cursor; without this the
            // query walked every notification kept (90 days of SENT history) from the first id
            // at the start of every pass. Partial: it holds only the rows still to send.
            try db.execute(sql: "CREATE INDEX push_notifications_queued ON push_notifications(id) WHERE status = 'QUEUED' AND digest_id IS NULL")
        }
        migrator.registerMigration("v5") { db in
            // Camera reads that passed the repeat filter (AGT-4). `text` is NULL for linking
            // codes (ENR-8): they are kept as `masked` and a keyed hash only. `outbox_id` names
            // the entry written in the same transaction when the class syncs.
            try db.execute(sql: """
                CREATE TABLE scan_events (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    camera TEXT NOT NULL,
                    captured_at REAL NOT NULL,
                    symbology TEXT NOT NULL,
                    class TEXT NOT NULL,
                    valid INTEGER NOT NULL,
                    latency_ms REAL NOT NULL,
                    payload_key TEXT,
                    text TEXT,
                    masked TEXT NOT NULL,
                    action TEXT NOT NULL,
                    outbox_id INTEGER
                );
                CREATE INDEX scan_events_captured ON scan_events(captured_at);

                -- AGT-6: a keyed hash of the token that was rejected; a hold is released when
                -- the vault holds a different token for the credential. NULL: released by hand.
                ALTER TABLE credential_holds ADD COLUMN token_fingerprint TEXT;
                """)
        }
        migrator.registerMigration("v8") { db in
            // Holds have kinds (issue #28, `HoldKind`): its declaration is stored with the hold.
            // Existing holds become credential holds; a capability's own migration reclassifies
            // the ones it made (enrollment's "v9" its Study Start holds).
            try db.execute(sql: """
                ALTER TABLE credential_holds ADD COLUMN kind TEXT NOT NULL DEFAULT 'credential';
                ALTER TABLE credential_holds ADD COLUMN waiting_for TEXT NOT NULL DEFAULT 'a new token';
                ALTER TABLE credential_holds ADD COLUMN fault INTEGER NOT NULL DEFAULT 1;
                ALTER TABLE credential_holds ADD COLUMN operator_release INTEGER NOT NULL DEFAULT 1;
                """)
        }
        for migration in capabilities {
            migrator.registerMigration(migration.identifier) { db in try migration.migrate(db) }
        }
        return migrator
    }
}
