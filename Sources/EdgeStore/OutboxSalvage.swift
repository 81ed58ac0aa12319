import EdgeCore
import FoundationEssentials
import Glibc
import GRDB

/// Re-queues what can still be read from a damaged database file (issue #30 item 3; the file
/// `DatabaseRecovery` moved aside, or any copy of a station's database) into a station's outbox.
///
/// Decisions:
/// - Outbox entries are queued again with everything fixed at enqueue (SYN-2): stream, kind,
///   payload, credential, creation time and, above all, the idempotency key, so the backend
///   applies each once even when it had applied it before the file was damaged (it answers the
///   replay as a duplicate). They are due at once; their attempt counts are kept.
/// - Their sequences are kept too (the fresh database's counter starts past the damaged one's),
///   so within a stream they still come before what the station queued since. A sequence the
///   station has already used (its counter could not be read) is replaced by a new one.
/// - Dead letters come back as dead letters with their reason: the backend refused them, and
///   sending them again is an operator's decision (`edge sync requeue`). Conflicts are not
///   restored: the server's version won, nothing is owed, and the damaged file keeps the log.
/// - An entry the station already has (by key, in its outbox, dead letters or conflicts) is
///   counted, not written. Running salvage twice is safe: what was delivered in between is
///   queued again and answered by the backend as the duplicate it is.
/// - Every row is checked as `edge import` checks its entries (names, JSON payload, key); one
///   that fails is reported lost, never sent half-read. Everything is written in one
///   transaction, so a salvage that fails writes nothing and can be run again.
/// - Capabilities' tables (enrollments, the GRN ledger, push history) are not the sync core's
///   to read (a lower layer never names an upper one's tables); they stay in the kept file.
/// - The file is opened read-only and never changed; the station's size limits do not apply
///   (this is work already owed, counted once before).
public enum OutboxSalvage {
    /// Reads `file` and writes what it can into `outbox`'s database. When `file` has a note
    /// (`DamagedDatabase`), the note records the salvage.
    ///
    /// Throws `.invalidArgument` when `file` is missing or is the station's own database,
    /// `.corrupt` when nothing of it can be read as an edge database, and the store's errors for
    /// the station's database.
    public static func salvage(file: String, into outbox: Outbox, now: Double = Date().timeIntervalSince1970) throws(StoreError) -> OutboxSalvageReport {
        try checkFile(file, target: outbox.database.path)
        let source: DatabaseQueue
        do {
            source = try DatabaseRecovery.openReadOnly(file)
        } catch {
            throw unreadable(file, error)
        }
        defer { try? source.close() }

        struct Candidate {
            let table: String
            let stream, kind, key, createdAt: String
            let payload: [UInt8]
            let sequence: Int64
            let attempts: Int
            let credential: String?
            let lastError: String?
            let reason: String?
            let deadAt: Double?
        }
        var report = OutboxSalvageReport()
        var candidates: [Candidate] = []
        do {
            // Outside a transaction: SQLite may roll one back at a corrupt page, and the scans
            // here go on after such errors.
            try source.inDatabase { db in
                let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
                guard tables.contains("outbox") else {
                    throw StoreError(.corrupt, "\(file) has no outbox table: it is not an edge database, or its schema is lost.", context: ["path": file])
                }
                for table in ["outbox", "dead_letters"] where tables.contains(table) {
                    let reader = DamagedTableReader(db: db, table: table)
                    let (ids, broken) = reader.rowIDs()
                    if broken { report.brokenTables.append(table) }
                    for id in ids.keys.sorted() {
                        let known = ids[id] ?? [:]
                        guard let row = reader.row(id: id) else {
                            report.lost.append(lost(table, id, known, nil))
                            continue
                        }
                        let value = { (name: String) -> DatabaseValue? in row.hasColumn(name) ? row[name] as DatabaseValue : nil }
                        guard let stream = DamagedTableReader.text(value("stream")), let kind = DamagedTableReader.text(value("kind")),
                              let key = DamagedTableReader.text(value("idempotency_key")), let createdAt = DamagedTableReader.text(value("created_at")),
                              let payload = DamagedTableReader.bytes(value("payload")), let sequence = DamagedTableReader.integer(value("sequence")),
                              sequence > 0, IdempotencyKeyText.isValid(key), !createdAt.isEmpty,
                              (try? Outbox.validateName(stream, field: "stream")) != nil, (try? Outbox.validateName(kind, field: "kind")) != nil,
                              (try? Outbox.validatePayload(payload, stream: stream)) != nil else {
                            report.lost.append(lost(table, id, known, row))
                            continue
                        }
                        let credential = DamagedTableReader.text(value("credential"))
                        if let credential, (try? Outbox.validateName(credential, field: "credential")) == nil || credential == Outbox.stationCredential {
                            report.lost.append(lost(table, id, known, row))
                            continue
                        }
                        candidates.append(Candidate(table: table, stream: stream, kind: kind, key: key, createdAt: createdAt, payload: payload,
                                                    sequence: sequence, attempts: Int(max(0, DamagedTableReader.integer(value("attempts")) ?? 0)),
                                                    credential: credential, lastError: DamagedTableReader.text(value("last_error")),
                                                    reason: DamagedTableReader.text(value("reason")), deadAt: DamagedTableReader.real(value("dead_at"))))
                    }
                }
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw unreadable(file, error)
        }

        // Oldest first, so ids and any new sequences follow the original order.
        candidates.sort { $0.sequence < $1.sequence }
        let name = DamagedDatabase.baseName(file)
        let database = outbox.database
        let written = try database.perform("re-queue the salvaged entries") {
            try database.dbWriter.write { db -> OutboxSalvageReport in
                var result = report
                var seen = Set<String>()
                var highest: Int64 = 0
                // Where replacement sequences come from: past the counter and past every salvaged
                // entry's own, so a replacement never takes a number a later entry keeps.
                guard let counter = try Int64.fetchOne(db, sql: "SELECT next_value FROM sequence_counter WHERE id = 1") else {
                    throw StoreError(.databaseFailure, "The sync database \(database.path) has no sequence counter.", context: ["path": database.path])
                }
                var spare = max(counter, (candidates.map(\.sequence).max() ?? 0) + 1)
                for entry in candidates {
                    let present = try Bool.fetchOne(db, sql: """
                        SELECT EXISTS (SELECT 1 FROM outbox WHERE idempotency_key = :key)
                            OR EXISTS (SELECT 1 FROM dead_letters WHERE idempotency_key = :key)
                            OR EXISTS (SELECT 1 FROM conflicts WHERE idempotency_key = :key)
                        """, arguments: ["key": entry.key]) ?? false
                    // A key twice in the file (outbox and dead letters both, from a damaged move):
                    // the first one read wins.
                    guard !present, seen.insert(entry.key).inserted else {
                        result.alreadyPresent += 1
                        continue
                    }
                    var sequence = entry.sequence
                    let taken = try Bool.fetchOne(db, sql: """
                        SELECT EXISTS (SELECT 1 FROM outbox WHERE sequence = :sequence)
                            OR EXISTS (SELECT 1 FROM dead_letters WHERE sequence = :sequence)
                        """, arguments: ["sequence": sequence]) ?? false
                    if taken {
                        sequence = spare
                        spare += 1
                        result.renumbered += 1
                    }
                    highest = max(highest, sequence)
                    if entry.table == "outbox" {
                        try db.execute(sql: """
                            INSERT INTO outbox (stream, kind, payload, idempotency_key, sequence, created_at, attempts, next_attempt_at, last_error, credential)
                            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                            """, arguments: [entry.stream, entry.kind, Data(entry.payload), entry.key, sequence, entry.createdAt, entry.attempts, now,
                                             "salvaged from \(name)", entry.credential])
                        result.requeued += 1
                    } else {
                        try db.execute(sql: """
                            INSERT INTO dead_letters (stream, kind, payload, idempotency_key, sequence, created_at, attempts, last_error, reason, dead_at, credential)
                            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                            """, arguments: [entry.stream, entry.kind, Data(entry.payload), entry.key, sequence, entry.createdAt, entry.attempts,
                                             entry.lastError, entry.reason ?? "salvaged from \(name)", entry.deadAt ?? now, entry.credential])
                        result.deadLetters += 1
                    }
                }
                // New entries of the station's own must never take a salvaged entry's number.
                try db.execute(sql: "UPDATE sequence_counter SET next_value = MAX(next_value, ?) WHERE id = 1", arguments: [highest + 1])
                return result
            }
        }
        if var note = DamagedDatabase.read(note: DamagedDatabase.notePath(file)) {
            note.path = file
            note.salvage = DamagedDatabase.Salvage(at: now, requeued: written.requeued, deadLetters: written.deadLetters,
                                                   alreadyPresent: written.alreadyPresent, unreadable: written.unreadable)
            // Best effort: the entries are queued either way; status then still lists the file as to salvage.
            try? note.writeNote()
        }
        return written
    }

    /// `file` must exist, be a regular file and not be the station's own database.
    private static func checkFile(_ file: String, target: String) throws(StoreError) {
        var info = stat()
        guard stat(file, &info) == 0 else {
            let reason = PosixFile.describe(errno: errno)
            throw StoreError(.invalidArgument, "Cannot read \(file): \(reason).", context: ["path": file, "errno": reason])
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw StoreError(.invalidArgument, "\(file) is not a regular file.", context: ["path": file])
        }
        var own = stat()
        if stat(target, &own) == 0, own.st_dev == info.st_dev, own.st_ino == info.st_ino {
            throw StoreError(.invalidArgument, "\(file) is the station's own database; salvage reads a damaged copy into it (see `edge status` for the moved file).",
                             context: ["path": file])
        }
    }

    private static func lost(_ table: String, _ id: Int64, _ known: DamagedTableReader.Known, _ row: Row?) -> OutboxSalvageReport.Lost {
        func value(_ name: String) -> DatabaseValue? {
            if let row, row.hasColumn(name) { return row[name] as DatabaseValue }
            return known[name]
        }
        let key = DamagedTableReader.text(value("idempotency_key")).flatMap { IdempotencyKeyText.isValid($0) ? $0 : nil }
        let stream = DamagedTableReader.text(value("stream")).map { DisplayText.oneLine($0, limit: 200) }
        return OutboxSalvageReport.Lost(table: table, id: id, idempotencyKey: key, stream: stream,
                                        sequence: DamagedTableReader.integer(value("sequence")))
    }

    private static func unreadable(_ file: String, _ error: any Error) -> StoreError {
        var context = ["path": file, "sqlite": String(describing: error)]
        if let databaseError = error as? DatabaseError { context["sqliteCode"] = String(databaseError.extendedResultCode.rawValue) }
        let said = (error as? DatabaseError).map { " (SQLite: \($0.message ?? $0.resultCode.description))" } ?? ""
        return StoreError(.corrupt, "Nothing can be read from \(file): it is not a SQLite database, or its first page is damaged\(said).", context: context)
    }
}
