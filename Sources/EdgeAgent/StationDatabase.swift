import EdgeStore
import Logging

/// The agent's database at start (AGT-1, issue #30 item 3): opened through `DatabaseRecovery`, so a
/// damaged file is moved aside and a fresh one started instead of the station failing at every
/// restart; the move goes to the log here and to status through the kept file
/// (`DamagedDatabase.list`, read by `StationStatus`). Any other failure to open still stops the
/// build: without a database nothing can be kept.
enum StationDatabase {
    static func open(_ paths: StationPaths, migrations: [SchemaMigration], now: Double, logger: Logger) throws(AgentPartError) -> EdgeDatabase {
        let opened: DatabaseRecovery.Opened
        do {
            opened = try DatabaseRecovery.open(path: paths.database, migrations: migrations, now: now)
        } catch {
            throw AgentPartError(.storeFailed, error.message)
        }
        for orphan in opened.orphans {
            logger.warning("a write-ahead log without its database was moved aside", metadata: [
                "event": "store.orphan_moved", "database": "\(paths.database)", "moved_to": "\(orphan)"])
        }
        if let moved = opened.movedAside {
            logger.critical("the database was damaged: moved aside, a fresh one started; re-queue its entries with `edge sync salvage`", metadata: [
                "event": "store.damaged_moved", "database": "\(paths.database)", "moved_to": "\(moved.path)", "reason": "\(moved.reason)"])
        }
        return opened.database
    }
}
