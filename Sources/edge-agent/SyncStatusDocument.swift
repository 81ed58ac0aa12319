import EdgeContract
import EdgeStore
import FoundationEssentials

/// `edge sync status --json`; its shape is models/sync-status.schema.json. Times are local
/// wall-clock with offset (SYN-10); payloads and tokens are never included.
struct SyncStatusDocument: Encodable {
    struct Stream: Encodable {
        let stream: String, depth: Int, oldestAgeSeconds: Int64, headAttempts: Int
        let headLastError: String?, headNextAttemptAt: String
        enum CodingKeys: String, CodingKey {
            case stream, depth
            case oldestAgeSeconds = "oldest_age_seconds", headAttempts = "head_attempts"
            case headLastError = "head_last_error", headNextAttemptAt = "head_next_attempt_at"
        }
    }

    struct Dead: Encodable {
        let id: Int64, stream: String, kind: String, sequence: Int64, idempotencyKey: String, reason: String, deadAt: String
        enum CodingKeys: String, CodingKey {
            case id, stream, kind, sequence, reason
            case idempotencyKey = "idempotency_key", deadAt = "dead_at"
        }
    }

    struct Conflict: Encodable {
        let id: Int64, stream: String, kind: String, sequence: Int64, idempotencyKey: String, changes: String?, recordedAt: String
        enum CodingKeys: String, CodingKey {
            case id, stream, kind, sequence, changes
            case idempotencyKey = "idempotency_key", recordedAt = "recorded_at"
        }
    }

    /// A hold with its kind (`HoldKind`): a fault or an expected wait ("waiting for approval"),
    /// and whether `edge sync release` may end it.
    struct Hold: Encodable {
        let credential: String, reason: String, since: String, kind: String, waitingFor: String, fault: Bool, operatorRelease: Bool
        enum CodingKeys: String, CodingKey {
            case credential, reason, since, kind, fault
            case waitingFor = "waiting_for", operatorRelease = "operator_release"
        }
    }

    struct Usage: Encodable {
        let entries: Int, bytes: Int, maxEntries: Int, maxBytes: Int, level: String
        enum CodingKeys: String, CodingKey {
            case entries, bytes, level
            case maxEntries = "max_entries", maxBytes = "max_bytes"
        }
    }

    let database: String
    let depth: Int
    let streams: [Stream]
    let deadLetters: [Dead]
    let conflicts: [Conflict]
    let holds: [Hold]
    let paused: Bool
    let pausedUntil: String?
    let pauseReason: String?
    let consecutiveFailures: Int
    let lastFailure: String?
    let upgradeRequired: Bool
    let upgradeMessage: String?
    let lastPush: String?
    let lastPull: String?
    let usage: Usage
    let needsAttention: Bool

    enum CodingKeys: String, CodingKey {
        case database, depth, streams, conflicts, holds, paused, usage
        case deadLetters = "dead_letters", pausedUntil = "paused_until", pauseReason = "pause_reason"
        case consecutiveFailures = "consecutive_failures", lastFailure = "last_failure"
        case upgradeRequired = "upgrade_required", upgradeMessage = "upgrade_message"
        case lastPush = "last_push", lastPull = "last_pull", needsAttention = "needs_attention"
    }

    init(database: String, status: OutboxStatus, deadLetters: [DeadLetter], conflicts: [ConflictRecord], appVersion: String, now: Double) {
        func time(_ seconds: Double?) -> String? { seconds.map { LocalTimestamp.string(epochSeconds: $0) } }
        self.database = database
        depth = status.depth
        streams = status.streams.map {
            Stream(stream: $0.stream, depth: $0.depth, oldestAgeSeconds: Int64($0.oldestEntryAge.rounded()), headAttempts: $0.headAttempts,
                   headLastError: $0.headLastError, headNextAttemptAt: LocalTimestamp.string(epochSeconds: $0.headNextAttemptAt))
        }
        self.deadLetters = deadLetters.map {
            Dead(id: $0.id, stream: $0.stream, kind: $0.kind, sequence: $0.sequence, idempotencyKey: $0.idempotencyKey,
                 reason: $0.reason, deadAt: LocalTimestamp.string(epochSeconds: $0.deadAt))
        }
        self.conflicts = conflicts.map {
            // The sender stores the error's details: the server's version and what changed.
            let details = try? ContractCoding.decode(JSONValue.self, from: $0.serverVersion)
            return Conflict(id: $0.id, stream: $0.stream, kind: $0.kind, sequence: $0.sequence, idempotencyKey: $0.idempotencyKey,
                            changes: details?["changes"]?.stringValue, recordedAt: LocalTimestamp.string(epochSeconds: $0.recordedAt))
        }
        holds = status.holds.map {
            Hold(credential: $0.credential, reason: $0.reason, since: LocalTimestamp.string(epochSeconds: $0.since), kind: $0.kind.name,
                 waitingFor: $0.kind.waitingFor, fault: $0.kind.isFault, operatorRelease: $0.kind.operatorMayRelease)
        }
        let sender = status.sender
        paused = sender.isPaused(now: now)
        pausedUntil = paused ? time(sender.pausedUntil) : nil
        pauseReason = paused ? sender.pauseReason : nil
        consecutiveFailures = sender.consecutiveFailures
        lastFailure = sender.lastFailure
        upgradeRequired = sender.upgradeRequired(appVersion: appVersion)
        upgradeMessage = upgradeRequired ? sender.upgradeMessage : nil
        lastPush = time(status.lastPush)
        lastPull = time(status.lastPull)
        usage = Usage(entries: status.usage.entries, bytes: status.usage.bytes, maxEntries: status.usage.limits.maxEntries,
                      maxBytes: status.usage.limits.maxBytes, level: status.usage.level.rawValue)
        needsAttention = paused || upgradeRequired || !deadLetters.isEmpty || status.holds.contains(where: \.kind.isFault) || status.usage.level != .normal
    }
}
