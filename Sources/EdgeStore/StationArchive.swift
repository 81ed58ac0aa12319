import EdgeCore
import FoundationEssentials

/// Station replacement (issue #16, item 7): the station's non-secret state as one versioned
/// JSON document (models/station-export.schema.json). `StationExport` builds it from a
/// database, `StationImport` validates it and applies it to another station's database.
///
/// Decision, what is exported: the rows the backend is still owed or that people rely on —
/// outbox entries, dead letters and conflicts (payloads byte for byte: they are data the station
/// owes the backend), credential holds, push preferences, devices, digests, notifications and
/// badges, and what each capability's section adds (`StationArchiveSection`; the capabilities
/// say what their sections hold). Credentials appear by vault NAME only; nothing here opens the
/// vault, so no token, secret or device key can reach the document. Push device tokens are exported: they are FCM addresses of people's phones,
/// kept in the database in clear, not credentials of this station.
///
/// Decision, what is not: scan events (a local log of this station's camera reads, with linking
/// codes as keyed hashes under this station's key and `outbox_id`s of local rows; what they
/// caused for the backend is already in the outbox), pulled changes and pull cursors (the new
/// station pulls from the start; changes are keyed by the backend's change id), sender state,
/// exchange times and the usage counter (this station's runtime state; the counter is kept by
/// triggers), token fingerprints of holds (keyed hashes of the old tokens) and photo FILES
/// (content-addressed `<state>/photos/<sha256>.jpg`: copied beside the document, see README).
///
/// Decision, format: `format` names the document kind, `version` its shape. An importer refuses
/// any other format and any version it does not know (a newer edge wrote it: upgrade first)
/// before decoding anything else. Binary columns are base64 (JSONEncoder's default for Data) so
/// every payload comes back byte for byte; times are the database's own numbers.
public struct StationArchive: Codable, Sendable, Equatable {
    public static let formatName = "edge-station-export"
    public static let currentVersion = 1

    public var format: String
    public var version: Int
    /// Unix seconds on the exporting station's clock.
    public var exportedAt: Double
    /// The edge version that wrote it, for people; not used to decide anything.
    public var edgeVersion: String?
    public var outbox: [OutboxRow]
    public var deadLetters: [DeadLetterRow]
    public var conflicts: [ConflictRow]
    public var credentialHolds: [HoldRow]
    public var pushUsers: [PushUserRow]
    public var pushDevices: [PushDeviceRow]
    public var pushDigests: [PushDigestRow]
    public var pushNotifications: [PushNotificationRow]
    public var pushBadges: [PushBadgeRow]
    /// The capabilities' lists by their top-level key (`StationArchiveSection`): kept and bounded
    /// here, their rows decoded by the capability that owns them (`rows(_:as:)`).
    public var sections: [String: [ArchiveValue]]

    enum CodingKeys: String, CodingKey, CaseIterable {
        case format, version, outbox, conflicts
        case exportedAt = "exported_at", edgeVersion = "edge_version", deadLetters = "dead_letters"
        case credentialHolds = "credential_holds"
        case pushUsers = "push_users", pushDevices = "push_devices", pushDigests = "push_digests"
        case pushNotifications = "push_notifications", pushBadges = "push_badges"
    }

    public init(exportedAt: Double, edgeVersion: String?) {
        format = Self.formatName
        version = Self.currentVersion
        self.exportedAt = exportedAt
        self.edgeVersion = edgeVersion
        outbox = []; deadLetters = []; conflicts = []; credentialHolds = []
        pushUsers = []; pushDevices = []; pushDigests = []; pushNotifications = []; pushBadges = []; sections = [:]
    }

    /// Every list is counted before its elements are decoded (`StationArchiveLimits`), so a
    /// document of the allowed size cannot make the importer build millions of rows.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        format = try c.decode(String.self, forKey: .format)
        version = try c.decode(Int.self, forKey: .version)
        exportedAt = try c.decode(Double.self, forKey: .exportedAt)
        edgeVersion = try c.decodeIfPresent(String.self, forKey: .edgeVersion)
        let max = StationArchiveLimits.maxRows
        outbox = try c.decodeList(.outbox, max: max)
        deadLetters = try c.decodeList(.deadLetters, max: max)
        conflicts = try c.decodeList(.conflicts, max: max)
        credentialHolds = try c.decodeList(.credentialHolds, max: max)
        pushUsers = try c.decodeList(.pushUsers, max: max)
        pushDevices = try c.decodeList(.pushDevices, max: max)
        pushDigests = try c.decodeList(.pushDigests, max: max)
        pushNotifications = try c.decodeList(.pushNotifications, max: max)
        pushBadges = try c.decodeList(.pushBadges, max: max)
        // Every other list belongs to a capability's section; a key that holds no list is not
        // one (older readers ignored unknown keys too).
        let others = try decoder.container(keyedBy: ArchiveKey.self)
        let own = Set(CodingKeys.allCases.map(\.stringValue))
        var sections: [String: [ArchiveValue]] = [:]
        for key in others.allKeys where !own.contains(key.stringValue) {
            guard (try? others.nestedUnkeyedContainer(forKey: key)) != nil else { continue }
            sections[key.stringValue] = try others.decodeList(key, max: max)
        }
        self.sections = sections
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(format, forKey: .format)
        try c.encode(version, forKey: .version)
        try c.encode(exportedAt, forKey: .exportedAt)
        try c.encodeIfPresent(edgeVersion, forKey: .edgeVersion)
        try c.encode(outbox, forKey: .outbox)
        try c.encode(deadLetters, forKey: .deadLetters)
        try c.encode(conflicts, forKey: .conflicts)
        try c.encode(credentialHolds, forKey: .credentialHolds)
        try c.encode(pushUsers, forKey: .pushUsers)
        try c.encode(pushDevices, forKey: .pushDevices)
        try c.encode(pushDigests, forKey: .pushDigests)
        try c.encode(pushNotifications, forKey: .pushNotifications)
        try c.encode(pushBadges, forKey: .pushBadges)
        var others = encoder.container(keyedBy: ArchiveKey.self)
        for (key, list) in sections { try others.encode(list, forKey: ArchiveKey(key)) }
    }

    /// A top-level key of a capability's section.
    struct ArchiveKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// The first two fields alone, decoded before the rest so that a newer document is refused
    /// for its version, not for a shape this edge does not know.
    struct Header: Decodable {
        var format: String?
        var version: Int?
        var edgeVersion: String?

        enum CodingKeys: String, CodingKey {
            case format, version
            case edgeVersion = "edge_version"
        }
    }

    // MARK: Rows. Local row ids are not exported except where rows of the document refer to
    // each other (a section's rows by the names the store's rows carry, digests by
    // notifications); the importer maps them to the ids the new station assigns.

    /// An outbox entry: what `Outbox.enqueue` fixed (SYN-2) and its retry state. Leases are not
    /// exported: they belong to the old station's sender processes.
    public struct OutboxRow: Codable, Sendable, Equatable {
        public var stream: String
        public var kind: String
        public var payload: Data
        public var idempotencyKey: String
        public var sequence: Int64
        public var createdAt: String
        public var attempts: Int
        public var nextAttemptAt: Double
        public var lastError: String?
        public var credential: String?

        enum CodingKeys: String, CodingKey {
            case stream, kind, payload, sequence, attempts, credential
            case idempotencyKey = "idempotency_key", createdAt = "created_at", nextAttemptAt = "next_attempt_at", lastError = "last_error"
        }
    }

    public struct DeadLetterRow: Codable, Sendable, Equatable {
        public var stream: String
        public var kind: String
        public var payload: Data
        public var idempotencyKey: String
        public var sequence: Int64
        public var createdAt: String
        public var attempts: Int
        public var lastError: String?
        public var credential: String?
        public var reason: String
        public var deadAt: Double

        enum CodingKeys: String, CodingKey {
            case stream, kind, payload, sequence, attempts, credential, reason
            case idempotencyKey = "idempotency_key", createdAt = "created_at", lastError = "last_error", deadAt = "dead_at"
        }
    }

    public struct ConflictRow: Codable, Sendable, Equatable {
        public var stream: String
        public var kind: String
        public var payload: Data
        public var idempotencyKey: String
        public var sequence: Int64
        public var createdAt: String
        public var attempts: Int
        public var credential: String?
        public var serverVersion: Data
        public var recordedAt: Double

        enum CodingKeys: String, CodingKey {
            case stream, kind, payload, sequence, attempts, credential
            case idempotencyKey = "idempotency_key", createdAt = "created_at", serverVersion = "server_version", recordedAt = "recorded_at"
        }
    }

    /// A credential hold without its token fingerprint (a keyed hash of the old token, meaningless
    /// to a station that will hold other tokens): on the new station it is released by hand or by
    /// the enrollment flow that made it (ENR-13), as its kind allows.
    ///
    /// The kind's declaration (`HoldKind`) is optional: an export made before holds had kinds
    /// has none, and its holds import as credential holds, as the station's own did (migration "v8").
    public struct HoldRow: Codable, Sendable, Equatable {
        public var credential: String
        public var reason: String
        public var since: Double
        public var kind: String?
        public var waitingFor: String?
        public var fault: Bool?
        public var operatorRelease: Bool?

        enum CodingKeys: String, CodingKey {
            case credential, reason, since, kind, fault
            case waitingFor = "waiting_for", operatorRelease = "operator_release"
        }

        public init(credential: String, reason: String, since: Double, kind: HoldKind? = nil) {
            self.credential = credential
            self.reason = reason
            self.since = since
            self.kind = kind?.name
            self.waitingFor = kind?.waitingFor
            self.fault = kind?.isFault
            self.operatorRelease = kind?.operatorMayRelease
        }

        /// The declaration, `.credential` when the export carried none (or only part of one).
        public var holdKind: HoldKind {
            guard let kind, let waitingFor, let fault, let operatorRelease else { return .credential }
            return HoldKind(name: kind, waitingFor: waitingFor, isFault: fault, operatorMayRelease: operatorRelease)
        }
    }

    /// A person's push preferences (PSH-3).
    public struct PushUserRow: Codable, Sendable, Equatable {
        public var userID: String
        public var pushEnabled: Bool
        public var timeZone: String?
        public var quietStart: Int
        public var quietEnd: Int
        public var overrideTypes: String
        public var disabledTypes: String
        public var updatedAt: Int64

        enum CodingKeys: String, CodingKey {
            case userID = "user_id", pushEnabled = "push_enabled", timeZone = "time_zone", quietStart = "quiet_start"
            case quietEnd = "quiet_end", overrideTypes = "override_types", disabledTypes = "disabled_types", updatedAt = "updated_at"
        }
    }

    public struct PushDeviceRow: Codable, Sendable, Equatable {
        public var userID: String
        public var token: String
        public var platform: String
        public var registeredAt: Int64
        public var retiredAt: Int64?
        public var retiredReason: String?

        enum CodingKeys: String, CodingKey {
            case token, platform
            case userID = "user_id", registeredAt = "registered_at", retiredAt = "retired_at", retiredReason = "retired_reason"
        }
    }

    /// A digest (PSH-4). `id` is the old station's, kept so notifications can name theirs.
    public struct PushDigestRow: Codable, Sendable, Equatable {
        public var id: Int64
        public var userID: String
        public var typeGroup: String
        public var tag: String
        public var title: String
        public var body: String
        public var deepLink: String?
        public var count: Int
        public var urgentCount: Int
        public var releaseAt: Int64
        public var status: String
        public var reason: String?
        public var createdAt: Int64
        public var updatedAt: Int64

        enum CodingKeys: String, CodingKey {
            case id, tag, title, body, count, status, reason
            case userID = "user_id", typeGroup = "type_group", deepLink = "deep_link", urgentCount = "urgent_count"
            case releaseAt = "release_at", createdAt = "created_at", updatedAt = "updated_at"
        }
    }

    /// A notification's durable record (PSH-11), every state time included.
    public struct PushNotificationRow: Codable, Sendable, Equatable {
        public var userID: String
        public var type: String
        public var priority: String
        public var title: String
        public var body: String
        public var deepLink: String?
        public var ttlSeconds: Int64
        public var createdAt: Int64
        public var expiresAt: Int64
        public var status: String
        public var reason: String?
        public var tag: String
        public var heldUntil: Int64?
        /// The `id` of a digest in this document.
        public var digestID: Int64?
        public var countedInBadge: Bool
        public var receivedAt: Int64
        public var heldAt: Int64?
        public var queuedAt: Int64?
        public var sentAt: Int64?
        public var deliveredAt: Int64?
        public var openedAt: Int64?
        public var failedAt: Int64?
        public var updatedAt: Int64

        enum CodingKeys: String, CodingKey {
            case type, priority, title, body, status, reason, tag
            case userID = "user_id", deepLink = "deep_link", ttlSeconds = "ttl_seconds", createdAt = "created_at"
            case expiresAt = "expires_at", heldUntil = "held_until", digestID = "digest_id", countedInBadge = "counted_in_badge"
            case receivedAt = "received_at", heldAt = "held_at", queuedAt = "queued_at", sentAt = "sent_at"
            case deliveredAt = "delivered_at", openedAt = "opened_at", failedAt = "failed_at", updatedAt = "updated_at"
        }
    }

    public struct PushBadgeRow: Codable, Sendable, Equatable {
        public var userID: String
        public var pendingApprovals: Int
        public var unread: Int
        public var updatedAt: Int64

        enum CodingKeys: String, CodingKey {
            case unread
            case userID = "user_id", pendingApprovals = "pending_approvals", updatedAt = "updated_at"
        }
    }
}

/// Bounds on what an import reads. The byte limit is checked on the file's size before it is
/// read; the row limits on each list's length before its elements are decoded. The schema's
/// `maxItems` are these numbers.
public struct StationArchiveLimits: Sendable, Hashable {
    /// Rows per top-level list: twice the outbox's standard entry limit, so any station within
    /// its limits fits.
    public static let maxRows = 200_000
    /// Transitions per enrollment, photos per GRN.
    public static let maxNestedRows = 10_000

    /// The whole document. The outbox alone may hold 512 MiB of payloads (OutboxLimits.standard),
    /// a third more in base64.
    public var maxDocumentBytes: Int

    public init(maxDocumentBytes: Int = 1 << 30) {
        self.maxDocumentBytes = maxDocumentBytes
    }

    public static let standard = StationArchiveLimits()
}

public typealias StationArchiveError = CodedError<StationArchiveErrorCode>

public enum StationArchiveErrorCode: String, Sendable, Hashable {
    /// The document is larger than `StationArchiveLimits.maxDocumentBytes`.
    case tooLarge
    /// A list is longer than its limit.
    case tooManyRows
    /// Not JSON, or not the shape models/station-export.schema.json describes.
    case invalidDocument
    /// Not an edge station export at all.
    case unknownFormat
    /// A version this edge does not know (a newer edge wrote it).
    case unsupportedVersion
    /// The station already holds rows that disagree with the document (same key, other content).
    case conflictingData
    /// The station's outbox has no room for the document's entries.
    case outboxFull
    /// The database or the file could not be read or written.
    case storeFailure
}

extension KeyedDecodingContainer {
    /// Decodes a list after checking its length, so an over-long list is refused before any of
    /// its elements is built.
    public func decodeList<T: Decodable>(_ key: Key, max: Int) throws -> [T] {
        var list = try nestedUnkeyedContainer(forKey: key)
        if let count = list.count, count > max {
            throw StationArchiveError(.tooManyRows, "The list \(key.stringValue) has \(count) rows; at most \(max) are accepted.",
                                      context: ["list": key.stringValue, "rows": String(count), "max": String(max)])
        }
        var out: [T] = []
        out.reserveCapacity(min(list.count ?? 0, max))
        while !list.isAtEnd {
            guard out.count < max else {
                throw StationArchiveError(.tooManyRows, "The list \(key.stringValue) has more than \(max) rows.",
                                          context: ["list": key.stringValue, "max": String(max)])
            }
            out.append(try list.decode(T.self))
        }
        return out
    }
}
