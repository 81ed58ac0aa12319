import GRDB

/// Where each column of a `push_notifications` row is, found once per fetch and used for every
/// row of it.
///
/// Why (issue #31): GRDB finds a column by name by lowercasing the name and comparing it with
/// each column's, about 1,650 instructions a lookup; 17 lookups a record were ~4 % of the
/// relay's instructions per notification (callgrind, Benchmarks section 6). The rows of one
/// statement share their columns, so the names are looked up once.
struct NotificationColumns {
    let id, userID, type, priority, title, body, deepLink, ttlSeconds, createdAt, expiresAt: Int
    let status, reason, tag, heldUntil, digestID, updatedAt: Int

    /// The positions in `row`; a column missing (a schema this edge does not know) throws.
    init(_ row: Row) throws(PushError) {
        let names = Array(row.columnNames)
        // Case-insensitive, as GRDB's lookup by name (SQLite's column names are).
        func index(_ name: String) throws(PushError) -> Int {
            guard let index = names.firstIndex(where: { $0 == name }) ?? names.firstIndex(where: { $0.lowercased() == name }) else {
                throw PushError(.databaseFailure, "A push notification row lacks a column this edge needs.", context: ["column": name])
            }
            return index
        }
        id = try index("id")
        userID = try index("user_id")
        type = try index("type")
        priority = try index("priority")
        title = try index("title")
        body = try index("body")
        deepLink = try index("deep_link")
        ttlSeconds = try index("ttl_seconds")
        createdAt = try index("created_at")
        expiresAt = try index("expires_at")
        status = try index("status")
        reason = try index("reason")
        tag = try index("tag")
        heldUntil = try index("held_until")
        digestID = try index("digest_id")
        updatedAt = try index("updated_at")
    }
}
