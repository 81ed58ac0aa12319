import Dispatch
import EdgeCore
import Glibc
import GRDB
import GRDBSQLite

/// The agent's one SQLite database (SYN-1): a WAL `DatabasePool` with `synchronous=FULL` on every
/// connection, foreign keys on, a busy timeout, checked with `PRAGMA quick_check` and
/// migrated when opened.
///
/// Callers run their own transactions on `dbWriter` so that a local change and its outbox entry
/// commit together (SYN-2).
public struct EdgeDatabase: Sendable {
    public let path: String
    public let dbWriter: DatabasePool

    /// Opens (creating if absent) the database at `path`, migrated with the store's own
    /// migrations and then `migrations` (the capabilities', see `SchemaMigration`).
    ///
    /// Throws `.corrupt` when the file is empty, is not a SQLite database or fails the integrity
    /// check; `.openFailed` when it cannot be opened or created; `.newerVersion` when a newer edge
    /// wrote it (see `refuseNewerVersion`).
    public init(path: String, migrations: [SchemaMigration] = [], busyTimeoutSeconds: Double = 5) throws(StoreError) {
        self.path = path
        let size = Self.fileSize(path)
        let migrator = StoreMigrations.migrator(migrations)
        if size == nil {
            try Self.refuseOrphanedWAL(path)
            try Self.createAtomically(path, migrator: migrator)
        } else if size == 0 {
            // Files are created complete (see createAtomically), so an empty one was truncated or
            // made by someone else; migrating it would hide that the queued work is gone.
            throw StoreError(.corrupt, "The sync database \(path) is empty (0 bytes); it has been truncated or was not created by edge.",
                             context: ["path": path, "bytes": "0"])
        }

        let pool = try Self.openPool(path, configuration: Self.configuration(busyTimeoutSeconds: busyTimeoutSeconds), patience: busyTimeoutSeconds)
        do {
            // GRDB sets synchronous=NORMAL on the writer after prepareDatabase when it enables
            // WAL, so it is set again here; the writer connection lives as long as the pool.
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = FULL")
            }
            // Decision (issue #30): `quick_check`, not `integrity_check`. Both read every page and
            // find what makes a file unusable (broken b-tree pages, bad records, out-of-order
            // keys); `integrity_check` also looks up every index entry's row, O(N log N): on a
            // 460 MB file of a million rows and three indexes, 34 s against quick_check's 1.5 s on
            // a desktop core, minutes on a small board, at every start and every `edge status`.
            // An index entry that disagrees with its row loses no data.
            let problems = try pool.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
            guard problems == ["ok"] else {
                try? pool.close()
                throw StoreError(.corrupt, "The sync database \(path) failed its integrity check; restore it from a backup or move it aside.",
                                 context: ["path": path, "quickCheck": problems.prefix(5).joined(separator: "; ")])
            }
            if !migrations.isEmpty { try Self.refuseNewerVersion(pool, migrator: migrator, path: path) }
            try Self.migrate(pool, migrator)
        } catch {
            try? pool.close()
            throw StoreError.wrapping(error, "check and migrate the database", path: path)
        }
        self.dbWriter = pool
    }

    /// Closes every connection; later accesses fail. Optional: the pool also closes when released.
    public func close() throws(StoreError) {
        do {
            try dbWriter.close()
        } catch {
            throw StoreError.wrapping(error, "close the database", path: path)
        }
    }

    /// One write transaction on the calling thread. Async callers use this rather than GRDB's
    /// async `write`, which runs the transaction on a libdispatch worker: under `edge run` the
    /// calling thread is one of the station's own (`StationExecutor`), and blocking there does not
    /// grow libdispatch's pools.
    public func write<T>(_ updates: (Database) throws -> T) throws -> T {
        try dbWriter.write(updates)
    }

    /// Runs `body`, turning any error into a StoreError that says what was being done.
    func perform<T>(_ action: String, _ body: () throws -> T) throws(StoreError) -> T {
        do {
            return try body()
        } catch {
            throw StoreError.wrapping(error, action, path: path)
        }
    }

    /// Bytes SQLite's allocator holds in this process now, every connection's page cache
    /// included (each up to SQLite's default 2000 KiB, filled as the pages it reads grow): the
    /// soak tells that bounded warm-up from a leak by it (`edge_sqlite_memory_bytes`).
    public static func memoryInUse() -> Int64 {
        sqlite3_memory_used()
    }

    static func configuration(busyTimeoutSeconds: Double) -> Configuration {
        var config = Configuration()
        config.foreignKeysEnabled = true
        config.busyMode = .timeout(busyTimeoutSeconds)
        // Runs for the writer and for every reader connection as it opens.
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        return config
    }

    /// Opening a pool switches a rollback-journal file to WAL (a copy restored from a backup, or a
    /// new file an older edge made). When two processes switch the same file at the same moment,
    /// SQLite answers one of them SQLITE_BUSY at once instead of waiting its busy timeout (both
    /// hold a read lock and want the write lock: waiting could deadlock); seen in CI as `edge run`
    /// exiting at start beside an `edge sync enqueue`. Such an open is retried, until the attempts
    /// and pauses add up to the busy timeout: by then the other switch is long done. A lock held
    /// for good (an attempt that waited out the busy timeout itself) fails as before.
    private static func openPool(_ path: String, configuration: Configuration, patience: Double) throws(StoreError) -> DatabasePool {
        var spent = 0.0
        var pause = 0.002
        // Also bounded by count: the monotonic clock below is one a test's libfaketime may move.
        var attempt = 0
        while true {
            attempt += 1
            let started = DispatchTime.now().uptimeNanoseconds
            do {
                return try DatabasePool(path: path, configuration: configuration)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && attempt < 12 {
                spent += Double(DispatchTime.now().uptimeNanoseconds &- started) / 1e9 + pause
                guard spent < patience else { throw openError(error, path: path) }
                usleep(UInt32(pause * 1_000_000))
                pause = min(pause * 2, 0.25)
            } catch {
                throw openError(error, path: path)
            }
        }
    }

    /// After an upgrade, the agent and a command may open the file at the same moment and both
    /// find the new version's migrations unapplied. GRDB reads the list, then runs each missing
    /// one in its own transaction: the process that read the list before the other's commit runs
    /// that migration again and fails ("table ... already exists"). So a failed migration is
    /// tried again when the applied list changed meanwhile (someone else migrated; the retry goes
    /// on from there), and is an error when it did not (the migration itself failed).
    private static func migrate(_ pool: DatabasePool, _ migrator: DatabaseMigrator) throws {
        func applied() throws -> Set<String> {
            try pool.read { db in try db.tableExists("grdb_migrations") ? migrator.appliedIdentifiers(db) : [] }
        }
        var attempts = 0
        while true {
            let before = try applied()
            do {
                try migrator.migrate(pool)
                return
            } catch {
                attempts += 1
                // Bounded: migrations are few, and each retry needs another process's progress.
                // A list that cannot be read now counts as unchanged: the migration's error stands.
                guard attempts < 10, ((try? applied()) ?? before) != before else { throw error }
            }
        }
    }

    /// Builds a new database beside `path` and links it into place, so a crash during first
    /// start leaves either no file or a complete, migrated one, never an empty file.
    ///
    /// Several processes may start at the same moment on a new station (the agent, a CLI
    /// command): each builds its own staging file (pid and a random number), and `link(2)`, which
    /// never replaces an existing name, publishes exactly one of them. A loser finds the
    /// winner's complete file and opens that; nobody's open database is ever replaced.
    private static func createAtomically(_ path: String, migrator: DatabaseMigrator) throws(StoreError) {
        let staging = "\(path).creating-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        func removeStaging() {
            for file in [staging, staging + "-journal", staging + "-wal", staging + "-shm"] { unlink(file) }
        }
        removeStaging()
        defer { removeStaging() }
        do {
            // Made in WAL mode (kept in the file's header), so that the processes that open a new
            // station's file together never switch its journal mode (see `openPool`).
            var walConfiguration = configuration(busyTimeoutSeconds: 5)
            walConfiguration.journalMode = .wal
            let queue = try DatabaseQueue(path: staging, configuration: walConfiguration)
            try migrator.migrate(queue)
            try queue.close()
        } catch {
            // The reason in words (issue #30 item 1): a missing directory, a full or read-only disk.
            var context = ["path": path, "sqlite": String(describing: error)]
            let problem = (error as? DatabaseError).flatMap { StoreError.storageProblem($0, path: path) }
            if let problem { context.merge(problem.context) { $1 } }
            throw StoreError(.openFailed, "Could not create the sync database \(path)" + (problem.map { ": \($0.words)." } ?? "."),
                             context: context)
        }
        if link(staging, path) != 0 && errno != EEXIST {
            let code = errno
            let reason = StorageProblem.diagnose(errno: code, path: path)?.words ?? PosixFile.describe(errno: code)
            throw StoreError(.openFailed, "Could not create the sync database \(path): \(reason).",
                             context: ["path": path, "errno": PosixFile.describe(errno: code)])
        }
        // Best effort: the file is complete either way; this makes its name survive a power loss.
        try? PosixFile.syncDirectory(of: path)
    }

    /// A downgrade (issue #33): a database whose applied migrations include one this binary does
    /// not know was written by a newer edge, whose schema this one cannot be trusted to read or
    /// write; it is refused before anything is written, so installing the newer edge again finds
    /// it as it left it. GRDB's migrator would skip the unknown identifiers and go on.
    ///
    /// Decision: judged only by an opener that passes the capabilities' migrations, i.e. claims
    /// the station's whole history (every command and `edge run` pass `StationSchema.migrations`,
    /// see `SchemaMigration`). One that passes none reads the store's own tables only (`edge
    /// status`) and cannot tell a capability's migration from a newer edge's.
    private static func refuseNewerVersion(_ pool: DatabasePool, migrator: DatabaseMigrator, path: String) throws {
        let unknown = try pool.read { db in
            guard try migrator.hasBeenSuperseded(db) else { return [String]() }
            return try migrator.appliedIdentifiers(db).subtracting(migrator.migrations).sorted()
        }
        guard let first = unknown.first else { return }
        let edge = BuildInfo.current
        throw StoreError(.newerVersion,
                         "The sync database \(path) was written by a newer edge (migration \(first)) than this one (\(edge.version)); "
                             + "install that version or newer, or restore the database this version wrote. Nothing was changed.",
                         context: ["path": path, "unknownMigrations": unknown.joined(separator: ", "), "version": edge.version, "commit": edge.commit])
    }

    /// A `-wal` without its database belongs to a file that was moved or deleted: SQLite would
    /// replay its pages into the new file and damage it. `DatabaseRecovery` moves such leftovers
    /// aside at the agent's start; anyone else is told.
    private static func refuseOrphanedWAL(_ path: String) throws(StoreError) {
        guard fileSize(path + "-wal") != nil else { return }
        throw StoreError(.openFailed, "The sync database \(path) is missing but its write-ahead log \(path)-wal is there; start `edge run` (it moves the log aside) or move it away before creating a new database.",
                         context: ["path": path])
    }

    private static func fileSize(_ path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }

    private static func openError(_ error: any Error, path: String) -> StoreError {
        let wrapped = StoreError.wrapping(error, "open the database", path: path)
        switch wrapped.code {
        case .databaseFailure:
            let reason = (error as? DatabaseError).map(StoreError.sqliteWords) ?? "\(error)"
            return StoreError(.openFailed, "Could not open the sync database \(path): SQLite said \(reason).", context: wrapped.context)
        case .storage:
            let words = StorageProblem(context: wrapped.context)?.words ?? "the disk refused"
            return StoreError(.openFailed, "Could not open the sync database \(path): \(words).", context: wrapped.context)
        default: return wrapped
        }
    }
}
