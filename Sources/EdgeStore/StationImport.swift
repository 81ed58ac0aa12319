import EdgeCore
import FoundationEssentials
import GRDB

/// What an import did, per table: rows written and rows the station already had.
public struct StationImportReport: Sendable, Equatable, Encodable {
    public struct Table: Sendable, Equatable, Encodable {
        public let table: String
        public var imported: Int
        public var alreadyPresent: Int

        enum CodingKeys: String, CodingKey {
            case table, imported
            case alreadyPresent = "already_present"
        }
    }

    public private(set) var tables: [Table] = []

    public var imported: Int { tables.reduce(0) { $0 + $1.imported } }

    public mutating func count(_ table: String, inserted: Bool) {
        if let index = tables.firstIndex(where: { $0.table == table }) {
            if inserted { tables[index].imported += 1 } else { tables[index].alreadyPresent += 1 }
        } else {
            tables.append(Table(table: table, imported: inserted ? 1 : 0, alreadyPresent: inserted ? 0 : 1))
        }
    }

    public func count(_ table: String) -> Table? { tables.first { $0.table == table } }
}

/// Restores a `StationArchive` into a station's database: decoded with bounds, validated, and
/// applied in ONE write transaction, so a refused or failed import writes nothing.
///
/// Decision, ids: local row ids are never carried over. A section whose ids appear in the store's
/// rows (in outbox streams and credential names) is
/// imported first and says how those names change; digests get new ids and their notifications
/// follow. Idempotency keys and sequences are kept: they are what the backend saw or will see
/// (SYN-2, SYN-10), and the sequence counter moves past the largest imported one so the
/// station's own new entries still come after them.
///
/// Decision, no duplicates on re-import: every row is matched by its natural key before it is
/// written, and a match is counted as already present instead: outbox entries and dead letters
/// by idempotency key (in the outbox, the dead letters or the conflicts: an entry the new station
/// has dead-lettered or had answered with 409 since is not queued again), conflicts by
/// idempotency key and recording time, push users and badges by user, devices by token, digests
/// by user, group, tag and creation time, notifications by user, type, tag, creation and receipt
/// time, holds by credential; the sections match theirs likewise. One case no table can tell: an
/// entry the new station delivered between two imports is gone from every table, so the second
/// import queues it again; the backend answers it as the replay it is by its idempotency key
/// (SYN-10), nothing is applied twice.
///
/// Decision, conflicting data: a row with the same key and other content means the document and
/// the station disagree about what the backend is owed, and the whole import is refused, naming
/// the row: an outbox entry or dead letter with another stream, kind, payload or credential; a
/// sequence used by another entry (import into a new station before it queues its own work); a
/// device token registered to another user; and what a section refuses. For caches and
/// preferences the station's own row is newer than any document and is kept (push users, badges,
/// holds).
public enum StationImport {
    /// Decodes `bytes` (already bounded by the caller's read) into a validated archive.
    /// `sections`: the capabilities' parts (`StationSchema.archiveSections` in EdgeStation).
    public static func decode(_ bytes: [UInt8], sections: [any StationArchiveSection],
                              limits: StationArchiveLimits = .standard) throws(StationArchiveError) -> StationArchive {
        guard bytes.count <= limits.maxDocumentBytes else {
            throw StationArchiveError(.tooLarge, "The export is \(bytes.count) bytes; at most \(limits.maxDocumentBytes) are accepted.",
                                      context: ["bytes": String(bytes.count), "maxBytes": String(limits.maxDocumentBytes)])
        }
        let data = Data(bytes)
        let header: StationArchive.Header
        do {
            header = try JSONDecoder().decode(StationArchive.Header.self, from: data)
        } catch {
            throw StationArchiveError(.invalidDocument, "This is not an edge station export (not a JSON object with a format and a version): \(describe(error)).")
        }
        guard header.format == StationArchive.formatName else {
            throw StationArchiveError(.unknownFormat, "This is not an edge station export (its \"format\" is not \"\(StationArchive.formatName)\").")
        }
        guard let version = header.version, version == StationArchive.currentVersion else {
            let named = header.version.map(String.init) ?? "missing"
            throw StationArchiveError(.unsupportedVersion,
                                      "The export has format version \(named); this edge reads version \(StationArchive.currentVersion) only. Upgrade edge on this station to the release that wrote it (\(header.edgeVersion.map { String($0.unicodeScalars.filter { $0.value > 0x20 && $0.value < 0x7F }.prefix(40).map(Character.init)) } ?? "a newer one")) first.",
                                      context: ["version": named, "supported": String(StationArchive.currentVersion)])
        }
        let archive: StationArchive
        do {
            archive = try JSONDecoder().decode(StationArchive.self, from: data)
        } catch let error as StationArchiveError {
            throw error
        } catch {
            throw StationArchiveError(.invalidDocument, "The export does not match models/station-export.schema.json: \(describe(error)).")
        }
        try validate(archive, sections: sections)
        return archive
    }

    /// Checks what the schema cannot: names and payloads as `Outbox.enqueue` checks them,
    /// uniqueness of keys within the document, and that rows refer to rows it carries.
    public static func validate(_ archive: StationArchive, sections: [any StationArchiveSection]) throws(StationArchiveError) {
        do {
            var keys = Set<String>(), sequences = Set<Int64>()
            let messages: [(String, String, Data, String, Int64, Int, String)] =
                archive.outbox.map { ("outbox", $0.stream, $0.payload, $0.idempotencyKey, $0.sequence, $0.attempts, $0.kind) }
                + archive.deadLetters.map { ("dead_letters", $0.stream, $0.payload, $0.idempotencyKey, $0.sequence, $0.attempts, $0.kind) }
            for (table, stream, payload, key, sequence, attempts, kind) in messages {
                try Outbox.validateName(stream, field: "stream")
                try Outbox.validateName(kind, field: "kind")
                try Outbox.validatePayload([UInt8](payload), stream: stream)
                guard IdempotencyKeyText.isValid(key) else { throw invalid("\(table) has an idempotency key that is not 1 to 200 printable characters") }
                guard keys.insert(key).inserted else { throw invalid("the idempotency key \(key) appears twice in the outbox and dead letters") }
                guard sequence > 0, sequences.insert(sequence).inserted else { throw invalid("the sequence \(sequence) is not positive or appears twice") }
                guard attempts >= 0 else { throw invalid("\(table) entry \(key) has a negative attempt count") }
            }
            for conflict in archive.conflicts {
                try Outbox.validateName(conflict.stream, field: "stream")
                try Outbox.validateName(conflict.kind, field: "kind")
                guard IdempotencyKeyText.isValid(conflict.idempotencyKey) else { throw invalid("a conflict has an invalid idempotency key") }
            }
        } catch let error as StationArchiveError {
            throw error
        } catch {
            throw invalid(describe(error))
        }
        guard Set(archive.pushUsers.map(\.userID)).count == archive.pushUsers.count else { throw invalid("a push user appears twice") }
        guard Set(archive.pushBadges.map(\.userID)).count == archive.pushBadges.count else { throw invalid("a push badge appears twice") }
        guard Set(archive.pushDevices.map(\.token)).count == archive.pushDevices.count else { throw invalid("a push device token appears twice") }
        let digests = Set(archive.pushDigests.map(\.id))
        guard digests.count == archive.pushDigests.count else { throw invalid("a push digest id appears twice") }
        for notification in archive.pushNotifications {
            if let digest = notification.digestID, !digests.contains(digest) {
                throw invalid("a notification names digest \(digest), which the export does not carry")
            }
        }
        for section in sections { try section.validate(archive) }
    }

    /// A document that breaks a rule the schema cannot state (for sections' checks too).
    public static func invalid(_ message: String) -> StationArchiveError {
        StationArchiveError(.invalidDocument, "The export is invalid: \(message).")
    }

    /// Applies a decoded archive in one transaction. Throws `.conflictingData` (nothing written)
    /// when the station holds rows that disagree with it; `.outboxFull` when its entries do not
    /// fit the station's outbox limits.
    public static func apply(_ archive: StationArchive, to database: EdgeDatabase, sections: [any StationArchiveSection],
                             outboxLimits: OutboxLimits = .standard) throws(StationArchiveError) -> StationImportReport {
        try validate(archive, sections: sections)
        do {
            return try database.dbWriter.write { db in try apply(archive, db, sections: sections, outboxLimits: outboxLimits) }
        } catch let error as StationArchiveError {
            throw error
        } catch {
            throw StationArchiveError(.storeFailure, "The import into \(database.path) failed and wrote nothing: \(describe(error)).",
                                      context: ["path": database.path, "sqlite": String(describing: error)])
        }
    }

    // MARK: Applying

    public static func conflict(_ message: String) -> StationArchiveError {
        StationArchiveError(.conflictingData,
                            "This station already holds different data: \(message). Nothing was imported; import into a new station before it queues its own work.")
    }

    private static func apply(_ archive: StationArchive, _ db: Database, sections: [any StationArchiveSection],
                              outboxLimits: OutboxLimits) throws -> StationImportReport {
        var report = StationImportReport()

        // The sections whose ids other rows carry go first; their renames apply to the store's rows.
        var renames: [@Sendable (String) -> String] = []
        for section in sections where section.importsFirst {
            if let rename = try section.apply(archive, db, report: &report) { renames.append(rename) }
        }
        func remap(_ name: String) -> String { renames.reduce(name) { $1($0) } }
        func remapOptional(_ name: String?) -> String? { name.map(remap) }

        // Outbox entries and dead letters: by idempotency key; sequences kept.
        struct Message { let table, stream, kind: String; let payload: Data; let key: String; let sequence: Int64; let credential: String? }
        let messages = archive.outbox.map { Message(table: "outbox", stream: remap($0.stream), kind: $0.kind, payload: $0.payload,
                                                    key: $0.idempotencyKey, sequence: $0.sequence, credential: remapOptional($0.credential)) }
            + archive.deadLetters.map { Message(table: "dead_letters", stream: remap($0.stream), kind: $0.kind, payload: $0.payload,
                                                key: $0.idempotencyKey, sequence: $0.sequence, credential: remapOptional($0.credential)) }
        var fresh = Set<String>()
        var addedEntries = 0, addedBytes = 0
        for message in messages {
            let present = try Row.fetchOne(db, sql: """
                SELECT stream, kind, payload, credential FROM outbox WHERE idempotency_key = ?
                UNION ALL SELECT stream, kind, payload, credential FROM dead_letters WHERE idempotency_key = ?
                """, arguments: [message.key, message.key])
            if let present {
                let same = present["stream"] == message.stream && present["kind"] == message.kind
                    && (present["payload"] as Data) == message.payload && present["credential"] == message.credential
                guard same else { throw conflict("the entry with idempotency key \(message.key) has other content here") }
                report.count(message.table, inserted: false)
                continue
            }
            if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM conflicts WHERE idempotency_key = ?)", arguments: [message.key]) == true {
                // The backend answered it with 409 on this station since: queueing it again would send it twice.
                report.count(message.table, inserted: false)
                continue
            }
            let taken = try Bool.fetchOne(db, sql: """
                SELECT EXISTS (SELECT 1 FROM outbox WHERE sequence = ?) OR EXISTS (SELECT 1 FROM dead_letters WHERE sequence = ?)
                """, arguments: [message.sequence, message.sequence]) ?? false
            if taken { throw conflict("sequence \(message.sequence) is used by another entry") }
            fresh.insert(message.key)
            addedEntries += 1
            addedBytes += message.payload.count
        }
        let row = try Row.fetchOne(db, sql: "SELECT entries, bytes FROM usage_counter WHERE id = 1")
        let usage = OutboxUsage(entries: row?["entries"] ?? 0, bytes: row?["bytes"] ?? 0, limits: outboxLimits)
        if usage.entries + addedEntries > outboxLimits.maxEntries || usage.bytes + addedBytes > outboxLimits.maxBytes {
            throw StationArchiveError(.outboxFull,
                                      "The export's \(addedEntries) entries (\(addedBytes) bytes) do not fit this station's outbox (\(usage.entries) of \(outboxLimits.maxEntries) entries, \(usage.bytes) of \(outboxLimits.maxBytes) bytes used); nothing was imported.")
        }
        for entry in archive.outbox where fresh.contains(entry.idempotencyKey) {
            try db.execute(sql: """
                INSERT INTO outbox (stream, kind, payload, idempotency_key, sequence, created_at, attempts, next_attempt_at, last_error, credential)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [remap(entry.stream), entry.kind, entry.payload, entry.idempotencyKey, entry.sequence, entry.createdAt,
                                 entry.attempts, entry.nextAttemptAt, entry.lastError, remapOptional(entry.credential)])
            report.count("outbox", inserted: true)
        }
        for dead in archive.deadLetters where fresh.contains(dead.idempotencyKey) {
            try db.execute(sql: """
                INSERT INTO dead_letters (stream, kind, payload, idempotency_key, sequence, created_at, attempts, last_error, credential, reason, dead_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [remap(dead.stream), dead.kind, dead.payload, dead.idempotencyKey, dead.sequence, dead.createdAt,
                                 dead.attempts, dead.lastError, remapOptional(dead.credential), dead.reason, dead.deadAt])
            report.count("dead_letters", inserted: true)
        }
        for record in archive.conflicts {
            let present = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM conflicts WHERE idempotency_key = ? AND recorded_at = ?)",
                                            arguments: [record.idempotencyKey, record.recordedAt]) ?? false
            if !present {
                try db.execute(sql: """
                    INSERT INTO conflicts (stream, kind, payload, idempotency_key, sequence, created_at, attempts, server_version, recorded_at, credential)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [remap(record.stream), record.kind, record.payload, record.idempotencyKey, record.sequence, record.createdAt,
                                     record.attempts, record.serverVersion, record.recordedAt, remapOptional(record.credential)])
            }
            report.count("conflicts", inserted: !present)
        }
        // Never give a number back (SYN-2): the station's own next entry comes after every imported one.
        let highest = (archive.outbox.map(\.sequence) + archive.deadLetters.map(\.sequence) + archive.conflicts.map(\.sequence)).max() ?? 0
        try db.execute(sql: "UPDATE sequence_counter SET next_value = MAX(next_value, ?) WHERE id = 1", arguments: [highest + 1])

        for hold in archive.credentialHolds {
            let kind = hold.holdKind
            try db.execute(sql: """
                INSERT OR IGNORE INTO credential_holds (credential, reason, since, token_fingerprint, kind, waiting_for, fault, operator_release)
                VALUES (?, ?, ?, NULL, ?, ?, ?, ?)
                """, arguments: [remap(hold.credential), hold.reason, hold.since, kind.name, kind.waitingFor, kind.isFault, kind.operatorMayRelease])
            report.count("credential_holds", inserted: db.changesCount > 0)
        }
        // Push: preferences and badges the station already has are its own, newer ones.
        for user in archive.pushUsers {
            try db.execute(sql: """
                INSERT OR IGNORE INTO push_users (user_id, push_enabled, time_zone, quiet_start, quiet_end, override_types, disabled_types, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [user.userID, user.pushEnabled, user.timeZone, user.quietStart, user.quietEnd, user.overrideTypes,
                                 user.disabledTypes, user.updatedAt])
            report.count("push_users", inserted: db.changesCount > 0)
        }
        for device in archive.pushDevices {
            if let owner = try String.fetchOne(db, sql: "SELECT user_id FROM push_devices WHERE token = ?", arguments: [device.token]) {
                guard owner == device.userID else { throw conflict("a push device token of \(device.userID) is registered to another user here") }
                report.count("push_devices", inserted: false)
                continue
            }
            try db.execute(sql: """
                INSERT INTO push_devices (user_id, token, platform, registered_at, retired_at, retired_reason) VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [device.userID, device.token, device.platform, device.registeredAt, device.retiredAt, device.retiredReason])
            report.count("push_devices", inserted: true)
        }
        var digestMap: [Int64: Int64] = [:]
        for digest in archive.pushDigests {
            if let id = try Int64.fetchOne(db, sql: "SELECT id FROM push_digests WHERE user_id = ? AND type_group = ? AND tag = ? AND created_at = ?",
                                           arguments: [digest.userID, digest.typeGroup, digest.tag, digest.createdAt]) {
                digestMap[digest.id] = id
                report.count("push_digests", inserted: false)
                continue
            }
            try db.execute(sql: """
                INSERT INTO push_digests (user_id, type_group, tag, title, body, deep_link, count, urgent_count, release_at, status, reason,
                    created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [digest.userID, digest.typeGroup, digest.tag, digest.title, digest.body, digest.deepLink, digest.count,
                                 digest.urgentCount, digest.releaseAt, digest.status, digest.reason, digest.createdAt, digest.updatedAt])
            digestMap[digest.id] = db.lastInsertedRowID
            report.count("push_digests", inserted: true)
        }
        for n in archive.pushNotifications {
            let present = try Bool.fetchOne(db, sql: """
                SELECT EXISTS (SELECT 1 FROM push_notifications WHERE user_id = ? AND type = ? AND tag = ? AND created_at = ? AND received_at = ?)
                """, arguments: [n.userID, n.type, n.tag, n.createdAt, n.receivedAt]) ?? false
            if !present {
                // The tag stays as it was: it was fixed once so every retry carries the same one (PSH-6).
                try db.execute(sql: """
                    INSERT INTO push_notifications (user_id, type, priority, title, body, deep_link, ttl_seconds, created_at, expires_at, status,
                        reason, tag, held_until, digest_id, counted_in_badge, received_at, held_at, queued_at, sent_at, delivered_at, opened_at,
                        failed_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: StatementArguments([
                        n.userID, n.type, n.priority, n.title, n.body, n.deepLink, n.ttlSeconds, n.createdAt, n.expiresAt, n.status,
                        n.reason, n.tag, n.heldUntil, n.digestID.flatMap { digestMap[$0] }, n.countedInBadge, n.receivedAt, n.heldAt,
                        n.queuedAt, n.sentAt, n.deliveredAt, n.openedAt, n.failedAt, n.updatedAt,
                    ] as [(any DatabaseValueConvertible)?]))
            }
            report.count("push_notifications", inserted: !present)
        }
        for badge in archive.pushBadges {
            try db.execute(sql: "INSERT OR IGNORE INTO push_badges (user_id, pending_approvals, unread, updated_at) VALUES (?, ?, ?, ?)",
                           arguments: [badge.userID, badge.pendingApprovals, badge.unread, badge.updatedAt])
            report.count("push_badges", inserted: db.changesCount > 0)
        }
        for section in sections where !section.importsFirst {
            _ = try section.apply(archive, db, report: &report)
        }
        return report
    }

    public static func describe(_ error: any Error) -> String {
        if let coded = error as? StoreError { return coded.message }
        switch error as? DecodingError {
        case .keyNotFound(let key, let context)?:
            return "\(CodingPathText.text(context.codingPath + [key])) is missing"
        case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?, .dataCorrupted(let context)?:
            let path = CodingPathText.text(context.codingPath)
            return (path.isEmpty ? "" : path + ": ") + context.debugDescription
        default:
            return String(describing: error)
        }
    }
}

/// Idempotency keys as the station makes them are UUIDs; an import accepts any short printable
/// key (the backend compares them as strings) but nothing a terminal or log would misread.
enum IdempotencyKeyText {
    static func isValid(_ key: String) -> Bool {
        let count = key.utf8.count
        return count > 0 && count <= 200 && key.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F }
    }
}
