import FoundationEssentials
import GRDB

/// Builds a `StationArchive` from a station's database in one read transaction, so the
/// document is one consistent moment of the station (an entry is in the outbox or a dead letter,
/// never both or neither) even while the agent runs.
public enum StationExport {
    /// `sections`: the capabilities' parts (`StationSchema.archiveSections` in EdgeStation).
    public static func archive(of database: EdgeDatabase, sections: [any StationArchiveSection], now: Double = Date().timeIntervalSince1970,
                               edgeVersion: String? = nil) throws(StationArchiveError) -> StationArchive {
        do {
            return try database.dbWriter.read { db in try read(db, sections: sections, now: now, edgeVersion: edgeVersion) }
        } catch let error as StationArchiveError {
            throw error
        } catch {
            throw StationArchiveError(.storeFailure, "The station database \(database.path) could not be read for the export.",
                                      context: ["path": database.path, "sqlite": String(describing: error)])
        }
    }

    static func read(_ db: Database, sections: [any StationArchiveSection], now: Double, edgeVersion: String?) throws -> StationArchive {
        var archive = StationArchive(exportedAt: now, edgeVersion: edgeVersion)
        // Ordered by sequence: streams are FIFO by sequence (SYN-3), and the import keeps them.
        archive.outbox = try Row.fetchAll(db, sql: "SELECT * FROM outbox ORDER BY sequence").map { r in
            StationArchive.OutboxRow(stream: r["stream"], kind: r["kind"], payload: r["payload"], idempotencyKey: r["idempotency_key"],
                                     sequence: r["sequence"], createdAt: r["created_at"], attempts: r["attempts"],
                                     nextAttemptAt: r["next_attempt_at"], lastError: r["last_error"], credential: r["credential"])
        }
        archive.deadLetters = try Row.fetchAll(db, sql: "SELECT * FROM dead_letters ORDER BY sequence").map { r in
            StationArchive.DeadLetterRow(stream: r["stream"], kind: r["kind"], payload: r["payload"], idempotencyKey: r["idempotency_key"],
                                         sequence: r["sequence"], createdAt: r["created_at"], attempts: r["attempts"],
                                         lastError: r["last_error"], credential: r["credential"], reason: r["reason"], deadAt: r["dead_at"])
        }
        archive.conflicts = try Row.fetchAll(db, sql: "SELECT * FROM conflicts ORDER BY id").map { r in
            StationArchive.ConflictRow(stream: r["stream"], kind: r["kind"], payload: r["payload"], idempotencyKey: r["idempotency_key"],
                                       sequence: r["sequence"], createdAt: r["created_at"], attempts: r["attempts"],
                                       credential: r["credential"], serverVersion: r["server_version"], recordedAt: r["recorded_at"])
        }
        archive.credentialHolds = try Row.fetchAll(db, sql: "SELECT * FROM credential_holds ORDER BY credential").map { r in
            let hold = CredentialHold(row: r)
            return StationArchive.HoldRow(credential: hold.credential, reason: hold.reason, since: hold.since, kind: hold.kind)
        }
        archive.pushUsers = try Row.fetchAll(db, sql: "SELECT * FROM push_users ORDER BY user_id").map { r in
            StationArchive.PushUserRow(userID: r["user_id"], pushEnabled: r["push_enabled"], timeZone: r["time_zone"], quietStart: r["quiet_start"],
                                       quietEnd: r["quiet_end"], overrideTypes: r["override_types"], disabledTypes: r["disabled_types"],
                                       updatedAt: r["updated_at"])
        }
        archive.pushDevices = try Row.fetchAll(db, sql: "SELECT * FROM push_devices ORDER BY id").map { r in
            StationArchive.PushDeviceRow(userID: r["user_id"], token: r["token"], platform: r["platform"], registeredAt: r["registered_at"],
                                         retiredAt: r["retired_at"], retiredReason: r["retired_reason"])
        }
        archive.pushDigests = try Row.fetchAll(db, sql: "SELECT * FROM push_digests ORDER BY id").map { r in
            StationArchive.PushDigestRow(id: r["id"], userID: r["user_id"], typeGroup: r["type_group"], tag: r["tag"], title: r["title"],
                                         body: r["body"], deepLink: r["deep_link"], count: r["count"], urgentCount: r["urgent_count"],
                                         releaseAt: r["release_at"], status: r["status"], reason: r["reason"], createdAt: r["created_at"],
                                         updatedAt: r["updated_at"])
        }
        archive.pushNotifications = try Row.fetchAll(db, sql: "SELECT * FROM push_notifications ORDER BY id").map { r in
            StationArchive.PushNotificationRow(
                userID: r["user_id"], type: r["type"], priority: r["priority"], title: r["title"], body: r["body"], deepLink: r["deep_link"],
                ttlSeconds: r["ttl_seconds"], createdAt: r["created_at"], expiresAt: r["expires_at"], status: r["status"], reason: r["reason"],
                tag: r["tag"], heldUntil: r["held_until"], digestID: r["digest_id"], countedInBadge: r["counted_in_badge"],
                receivedAt: r["received_at"], heldAt: r["held_at"], queuedAt: r["queued_at"], sentAt: r["sent_at"],
                deliveredAt: r["delivered_at"], openedAt: r["opened_at"], failedAt: r["failed_at"], updatedAt: r["updated_at"])
        }
        archive.pushBadges = try Row.fetchAll(db, sql: "SELECT * FROM push_badges ORDER BY user_id").map { r in
            StationArchive.PushBadgeRow(userID: r["user_id"], pendingApprovals: r["pending_approvals"], unread: r["unread"], updatedAt: r["updated_at"])
        }
        for section in sections {
            archive.sections.merge(try section.export(db)) { _, new in new }
        }
        return archive
    }
}
