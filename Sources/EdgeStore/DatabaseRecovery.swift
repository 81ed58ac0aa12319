import EdgeCore
import FoundationEssentials
import Glibc
import GRDB

/// Opens the agent's database at start so that a damaged file does not stop the station for good
/// (issue #30 item 3, AGT-11): a station restarted by systemd against the same damaged file would
/// fail the same way every time (a crash loop) and record nothing.
///
/// What counts as damaged: `EdgeDatabase` says `.corrupt`, i.e. SQLite answers SQLITE_CORRUPT or
/// SQLITE_NOTADB while opening, checking or migrating it (a truncated file, flipped bits in a page,
/// another kind of file under the name), `PRAGMA quick_check` finds a broken page, or the file is
/// empty. Such a file is moved aside, kept with its `-wal` and `-shm` and a note
/// (`DamagedDatabase`), and a fresh database is started in its place. `edge sync salvage` re-queues
/// what can still be read from it (`OutboxSalvage`).
///
/// What is not moved: every other failure, which is an error to report, not a file to replace: a
/// database another process holds locked (SQLITE_BUSY), one this user may not read, a directory or
/// missing directory in its place, a full or read-only disk, an I/O error from the device (moving a
/// file does not mend a failing disk), a database from a newer edge. The build then fails as before
/// and says why.
public enum DatabaseRecovery {
    /// What `open` found.
    public struct Opened: Sendable {
        public let database: EdgeDatabase
        /// The damaged file moved aside this time, if any.
        public let movedAside: DamagedDatabase?
        /// `-wal` / `-shm` files found without their database and moved aside (an interrupted
        /// move, or a database deleted by hand): replayed into a fresh file they would damage it.
        public let orphans: [String]
    }

    /// Opens `path` as `EdgeDatabase` does; a damaged file is moved aside and a fresh one opened.
    /// `now`: the station's wall clock, for the moved file's name and note.
    public static func open(path: String, migrations: [SchemaMigration], now: Double) throws(StoreError) -> Opened {
        let orphans = try moveOrphans(of: path, now: now)
        let damage: StoreError
        do {
            return Opened(database: try EdgeDatabase(path: path, migrations: migrations), movedAside: nil, orphans: orphans)
        } catch where error.code == .corrupt {
            damage = error
        }
        let floor = sequenceFloor(of: path, now: now)
        let moved = try moveAside(path, reason: damage, now: now)
        let database = try EdgeDatabase(path: path, migrations: migrations)
        // SYN-2: sequences never repeat on a device. The backend saw the damaged file's numbers;
        // the fresh file goes on above them, and salvaged entries keep theirs.
        try database.perform("carry the sequence past the damaged database's") {
            try database.dbWriter.write { db in
                try db.execute(sql: "UPDATE sequence_counter SET next_value = MAX(next_value, ?) WHERE id = 1", arguments: [floor])
            }
        }
        return Opened(database: database, movedAside: moved, orphans: orphans)
    }

    /// The companions SQLite keeps beside a database file.
    static let companions = ["-wal", "-shm"]

    /// Moves `path` and its companions to `<path>.damaged-<stamp>` (main file first, see
    /// `moveOrphans`), then writes the note. Nothing is deleted.
    static func moveAside(_ path: String, reason: StoreError, now: Double) throws(StoreError) -> DamagedDatabase {
        var target = path + DamagedDatabase.marker + DamagedDatabase.stamp(now)
        var suffix = 2
        while exists(target) || companions.contains(where: { exists(target + $0) }) {
            target = path + DamagedDatabase.marker + DamagedDatabase.stamp(now) + "-\(suffix)"
            suffix += 1
        }
        // The main file first: if the process dies between the renames, what is left is a `-wal`
        // without its database, which the next start moves after it (`moveOrphans`). The other
        // order would leave the damaged file without its WAL under the live name, and a copy that
        // passes the check without its latest transactions would be used silently.
        try rename(path, to: target)
        for companion in companions where exists(path + companion) {
            try rename(path + companion, to: target + companion)
        }
        try? PosixFile.syncDirectory(of: path)
        var detail = reason.message
        if let sqlite = reason.context["sqlite"] { detail += " (\(sqlite))" }
        if let check = reason.context["quickCheck"] ?? reason.context["integrityCheck"] { detail += " [\(check)]" }
        let moved = DamagedDatabase(path: target, movedAt: now, reason: detail)
        // The move is what matters; a note that cannot be written leaves the file listed by its name.
        try? moved.writeNote()
        return moved
    }

    /// A `-wal` or `-shm` at `path` without the database itself: a move aside interrupted after its
    /// first rename, or a database removed by hand. Moved after the newest damaged file that lacks
    /// it, else aside on its own, so that no fresh database ever replays a stranger's WAL.
    static func moveOrphans(of path: String, now: Double) throws(StoreError) -> [String] {
        guard !exists(path) else { return [] }
        let present = companions.filter { exists(path + $0) }
        // Asked again: another process may have created the database and opened it (making its
        // WAL) between the two looks. A database that was missing after the WAL was seen had no
        // live WAL then (SQLite makes one only beside an existing database file).
        guard !present.isEmpty, !exists(path) else { return [] }
        let owner = DamagedDatabase.list(beside: path).last { moved in present.allSatisfy { !exists(moved.path + $0) } }
        let target = owner?.path ?? (path + ".orphaned-" + DamagedDatabase.stamp(now))
        var moved: [String] = []
        for companion in present where !exists(target + companion) {
            try rename(path + companion, to: target + companion)
            moved.append(target + companion)
        }
        try? PosixFile.syncDirectory(of: path)
        return moved
    }

    /// The number the fresh database's sequence counter starts at: the damaged file's counter when
    /// it can still be read (it only ever grows), else past the highest sequence readable in it
    /// and past the wall clock in milliseconds, which any station's counter stays below (it counts
    /// entries, a few a second at most, and was started after 2001) unless the clock is far
    /// behind, which the readable sequences then cover as far as they go.
    static func sequenceFloor(of path: String, now: Double) -> Int64 {
        var highest: Int64 = 0
        if let queue = try? openReadOnly(path) {
            defer { try? queue.close() }
            if let next = try? queue.inDatabase({ db in try Int64.fetchOne(db, sql: "SELECT next_value FROM sequence_counter WHERE id = 1") }) ?? nil {
                return next
            }
            for table in ["outbox", "dead_letters", "conflicts"] {
                if let value = try? queue.inDatabase({ db in try Int64.fetchOne(db, sql: "SELECT MAX(sequence) FROM \(table)") }) ?? nil {
                    highest = max(highest, value)
                }
            }
        }
        let clock = now.isFinite && now > 0 ? Int64(min(now * 1000, 9e15)) : 0
        return max(highest + 1, clock, 1)
    }

    /// A read-only connection: it never writes the file or its WAL (it may build the `-shm` index,
    /// which is derived), so reading a damaged file keeps it as it was found.
    ///
    /// `writable_schema`: a file cut short has fewer pages than its header says, which SQLite
    /// otherwise refuses before reading anything; with it, the pages that are there can be read.
    /// Nothing can be written through a read-only connection, the schema included.
    static func openReadOnly(_ path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA writable_schema = ON") }
        return try DatabaseQueue(path: path, configuration: configuration)
    }

    private static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    private static func rename(_ from: String, to: String) throws(StoreError) {
        guard Glibc.rename(from, to) == 0 else {
            let reason = PosixFile.describe(errno: errno)
            throw StoreError(.openFailed, "The damaged database \(from) could not be moved aside to \(to): \(reason).",
                             context: ["path": from, "target": to, "errno": reason])
        }
    }
}
