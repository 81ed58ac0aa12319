import GRDB

/// A capability's part of the station's schema (issue #27 item 5): the capability owns its tables
/// and the migration that makes them; the store runs it after its own.
///
/// Decision: the station keeps one ordered history. Every process that opens the database for
/// a station passes the same full list (EdgeStation's `StationSchema.all`, whatever the role), so
/// a file created by `edge sync enqueue` and one created by `edge run` hold the same migrations
/// under the same names in the same order. An opener that passes fewer (`edge status`, which
/// only reads the store's own tables) may create a file without them; the next full opener adds
/// them, still after the store's own and in the list's order. Only an opener that passes the list
/// refuses a file holding a migration it does not know (a newer edge's, `EdgeDatabase`).
public struct SchemaMigration: Sendable {
    /// Never changes once shipped: databases record it as applied.
    public let identifier: String
    public let migrate: @Sendable (Database) throws -> Void

    public init(_ identifier: String, migrate: @escaping @Sendable (Database) throws -> Void) {
        self.identifier = identifier
        self.migrate = migrate
    }
}
