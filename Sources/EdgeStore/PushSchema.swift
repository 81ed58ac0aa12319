import GRDB

/// The push relay's tables (PSH-2, PSH-4, PSH-5, PSH-11), registered as migration "v3".
/// EdgePush's `PushStore` reads and writes them.
///
/// Decision: the schema stays here although EdgePush owns every query, unlike enrollment's and
/// receiving's (`SchemaMigration`). Its migrations are "v3" and "v4", between the store's own "v2"
/// and "v5" on every station already in the field; moved after them, a file created by one
/// process would apply them in another order than a file created by another, under the same
/// names. Moving them out means new names and a migration that recognises the old ones.
enum PushSchema {
    static func create(_ db: Database) throws {
        // Times are INTEGER Unix seconds: push decisions are per second, and they compare
        // numerically. Type sets are comma-separated type names (a handful of fixed values).
        try db.execute(sql: """
            CREATE TABLE push_users (
                user_id TEXT PRIMARY KEY,
                push_enabled INTEGER NOT NULL,
                time_zone TEXT,
                quiet_start INTEGER NOT NULL CHECK (quiet_start BETWEEN 0 AND 1439),
                quiet_end INTEGER NOT NULL CHECK (quiet_end BETWEEN 0 AND 1439),
                override_types TEXT NOT NULL,
                disabled_types TEXT NOT NULL,
                updated_at INTEGER NOT NULL
            );

            -- Retired devices stay (with why) so a pruned token is recognised if it comes back.
            CREATE TABLE push_devices (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                user_id TEXT NOT NULL,
                token TEXT NOT NULL UNIQUE,
                platform TEXT NOT NULL CHECK (platform IN ('ANDROID', 'IOS', 'WEB')),
                registered_at INTEGER NOT NULL,
                retired_at INTEGER,
                retired_reason TEXT
            );
            CREATE INDEX push_devices_user ON push_devices(user_id, retired_at);

            -- One summary per user and type group, made when a quiet window ends (PSH-4).
            CREATE TABLE push_digests (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                user_id TEXT NOT NULL,
                type_group TEXT NOT NULL,
                tag TEXT NOT NULL,
                title TEXT NOT NULL,
                body TEXT NOT NULL,
                deep_link TEXT,
                count INTEGER NOT NULL,
                urgent_count INTEGER NOT NULL,
                release_at INTEGER NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('QUEUED', 'SENT', 'DELIVERED', 'OPENED', 'FAILED')),
                reason TEXT,
                created_at INTEGER NOT NULL,
                updated_at INTEGER NOT NULL
            );
            CREATE INDEX push_digests_due ON push_digests(status, release_at);

            -- Every notification's durable record (PSH-11), with the time it entered each state.
            CREATE TABLE push_notifications (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                user_id TEXT NOT NULL,
                type TEXT NOT NULL,
                priority TEXT NOT NULL CHECK (priority IN ('URGENT', 'HIGH', 'NORMAL')),
                title TEXT NOT NULL,
                body TEXT NOT NULL,
                deep_link TEXT,
                ttl_seconds INTEGER NOT NULL,
                created_at INTEGER NOT NULL,
                expires_at INTEGER NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('QUEUED', 'HELD', 'SENT', 'DELIVERED', 'OPENED', 'FAILED')),
                reason TEXT,
                tag TEXT NOT NULL,
                held_until INTEGER,
                digest_id INTEGER REFERENCES push_digests(id) ON DELETE SET NULL,
                counted_in_badge INTEGER NOT NULL DEFAULT 0,
                received_at INTEGER NOT NULL,
                held_at INTEGER,
                queued_at INTEGER,
                sent_at INTEGER,
                delivered_at INTEGER,
                opened_at INTEGER,
                failed_at INTEGER,
                updated_at INTEGER NOT NULL
            );
            CREATE INDEX push_notifications_held ON push_notifications(status, held_until);
            CREATE INDEX push_notifications_updated ON push_notifications(updated_at);
            CREATE INDEX push_notifications_digest ON push_notifications(digest_id);

            -- The badge's two parts (PSH-5); CHECK keeps a bug from ever showing a negative count.
            CREATE TABLE push_badges (
                user_id TEXT PRIMARY KEY,
                pending_approvals INTEGER NOT NULL DEFAULT 0 CHECK (pending_approvals >= 0),
                unread INTEGER NOT NULL DEFAULT 0 CHECK (unread >= 0),
                updated_at INTEGER NOT NULL
            );
            """)
    }
}
