import EdgeStore
import GRDB

/// The relay's durable state (PSH-2, PSH-4, PSH-5, PSH-11) in the agent's database (tables of
/// migration "v3"). Every change is one transaction, so a restart finds each notification in
/// exactly one state: nothing held is lost, nothing is released twice.
///
/// One file per concern: preferences, devices, intake, holds and digests, status, dispatch
/// (sending and settling), badges, retention. This file holds what they share.
public struct PushStore: Sendable {
    /// Records are kept 90 days (PSH-11).
    public static let retentionSeconds: Int64 = 90 * 24 * 3600
    /// At most 3 active devices per user (PSH-2).
    public static let maxActiveDevices = 3
    /// Digests are spread over this many seconds after the window ends (PSH-4).
    public static let defaultReleaseSpreadSeconds: Int64 = 300
    public static let maxTokenBytes = 4096

    public let database: EdgeDatabase
    /// The zone of users without one (PSH-3).
    public let stationZone: String
    public let zones: TimeZoneDatabase

    /// Throws when `stationZone` is not a readable zone: every user without a zone depends on it.
    public init(database: EdgeDatabase, stationZone: String, zones: TimeZoneDatabase = .system) throws(PushError) {
        _ = try zones.rules(for: stationZone)
        self.database = database
        self.stationZone = stationZone
        self.zones = zones
    }

    /// Runs `body` in one write transaction; any error becomes a PushError naming `action`.
    func write<T>(_ action: String, _ body: (Database) throws -> T) throws(PushError) -> T {
        do {
            return try database.dbWriter.write { db in try body(db) }
        } catch {
            throw Self.wrap(error, action)
        }
    }

    /// Runs `body` on a read snapshot; any error becomes a PushError naming `action`.
    func read<T>(_ action: String, _ body: (Database) throws -> T) throws(PushError) -> T {
        do {
            return try database.dbWriter.read { db in try body(db) }
        } catch {
            throw Self.wrap(error, action)
        }
    }

    func records(_ action: String, sql: String, _ arguments: StatementArguments) throws(PushError) -> [NotificationRecord] {
        let rows = try read(action) { db in try Row.fetchAll(db, sql: sql, arguments: arguments) }
        var records: [NotificationRecord] = []
        guard let first = rows.first else { return [] }
        let columns = try NotificationColumns(first)
        for row in rows { records.append(try NotificationRecord(row: row, columns: columns)) }
        return records
    }

    static func wrap(_ error: any Error, _ action: String) -> PushError {
        if let pushError = error as? PushError { return pushError }
        return PushError(.databaseFailure, "The push store reported an error while trying to \(action).",
                         context: ["action": action, "sqlite": String(describing: error)])
    }
}
