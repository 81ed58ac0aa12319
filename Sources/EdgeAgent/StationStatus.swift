import EdgeCore
import EdgeStore
import FoundationEssentials

/// The station at a glance (AGT-7): `edge status [--json]` and the kiosk's status page. Shape:
/// models/station-status.schema.json. Built from the running agent's status file and the
/// database, so it answers whether the agent runs or not, and never holds a secret.
public struct StationStatus: Encodable, Sendable {
    public struct Agent: Encodable, Sendable {
        public var running: Bool
        public var pid: Int32?
        public var startedAt: Double?
        public var updatedAt: Double?
        public var restartPending: [String]
        public var lastReloadError: String?
        public var metrics: String?
        /// The kiosk's address (`http://127.0.0.1:8080`), when it serves.
        public var ui: String?
        /// The edge the running agent is (its status file's); nil when it does not run.
        public var edge: BuildInfo?
    }

    public struct Part: Encodable, Sendable {
        public var name: String
        public var state: String
        public var reason: String?
        public var since: Double
        /// A part being retried: failed attempts in a row, and when (Unix seconds) the next is due.
        public var attempts: Int?
        public var retryAt: Double?

        /// "tried 3 times, next in 8 s": what the operator reads beside the reason.
        public func retrying(now: Double) -> String? {
            guard let attempts, let retryAt else { return nil }
            return "tried \(attempts) time\(attempts == 1 ? "" : "s"), next in \(Int(max(0, retryAt - now).rounded(.up))) s"
        }
    }

    /// A held credential with its kind (`HoldKind`, issue #28): a fault (the backend rejected a
    /// token) is listed under `missing` with what ends it; an expected wait (a Study Start
    /// approval, ENR-13) is shown as "waiting for approval", never with release advice.
    public struct Hold: Encodable, Sendable {
        public var credential: String
        public var reason: String
        public var since: Double
        public var kind: String
        /// "approval": shown as "waiting for approval".
        public var waitingFor: String
        /// Whether an operator must act; false for an expected wait.
        public var fault: Bool
        /// How an operator releases it by hand; nil when no operator may (only its owner ends it).
        public var release: String?
        /// Whether it is released by itself when the vault gets a new token (AGT-6).
        public var releasedByNewToken: Bool

        public init(_ hold: CredentialHold) {
            credential = hold.credential
            reason = hold.reason
            since = hold.since
            kind = hold.kind.name
            waitingFor = hold.kind.waitingFor
            fault = hold.kind.isFault
            release = hold.kind.operatorMayRelease ? "edge sync release \(hold.credential)" : nil
            releasedByNewToken = hold.kind.operatorMayRelease && hold.tokenFingerprint != nil
        }

        /// One line for `missing` (faults only): what holds it and what ends it.
        public var attention: String {
            "credential \(credential) held: \(reason); "
                + (release.map { "`\($0)` sends its entries again once the vault has a token for it" } ?? "waiting for \(waitingFor)")
        }
    }

    public struct Queue: Encodable, Sendable {
        public var database: String
        public var depth: Int
        public var oldestAgeSeconds: Double?
        public var deadLetters: Int
        public var conflicts: Int
        public var paused: String?
        public var upgradeRequired: String?
        public var lastPush: Double?
        public var lastPull: Double?
        public var lastPullError: String?
        public var holds: [Hold]
    }

    public struct Vault: Encodable, Sendable {
        public var directory: String
        /// Where its key generations live (outside `directory`).
        public var keyDirectory: String?
        public var backend: String?
        public var reason: String?
        public var error: String?
    }

    /// A database found damaged at start and moved aside (issue #30 item 3), listed while the
    /// file is kept beside the database.
    public struct DamagedDatabaseFile: Encodable, Sendable {
        public var path: String
        public var movedAt: Double
        public var reason: String
        /// What `edge sync salvage` re-queued from it; nil until it has run.
        public var salvaged: DamagedDatabase.Salvage?
        /// The command that re-queues its entries.
        public var salvageCommand: String
    }

    public struct ScanEvents: Encodable, Sendable {
        public var total: Int
        public var recent: [ScanEvent]
    }

    /// The edge answering (`edge status`'s own binary, or the running agent for the kiosk): with
    /// `agent.edge` it tells whether an installed upgrade still waits for a restart.
    public var edge: BuildInfo
    public var station: String
    public var role: String
    public var configuration: String?
    public var agent: Agent
    public var parts: [Part]
    public var cameras: [AgentState.Camera]
    public var queue: Queue?
    public var vault: Vault
    public var scanEvents: ScanEvents?
    /// One line per thing that keeps the station from doing all it is configured to.
    public var missing: [String]
    /// Damaged databases moved aside and still kept, oldest first.
    public var damagedDatabases: [DamagedDatabaseFile]
    /// The disks the station writes to (issue #30 item 1): measured by whoever answers, so a
    /// full disk shows even when the agent cannot write its status file.
    public var storage: StorageReport

    /// The running station's own view of itself (the kiosk's status page, issue #27): its live
    /// state and its open database, instead of the status file and a second connection with its
    /// integrity check on every look.
    public struct Live: Sendable {
        let file: AgentStatusFile
        let database: EdgeDatabase
        let storage: StorageReport
    }

    /// Collects the status for `configuration`: from the status file and the database, opened
    /// only when it exists (status must not create one); or, with `live`, from the running
    /// station itself.
    public static func collect(_ configuration: StationConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment,
                               now: Double = Date().timeIntervalSince1970, live: Live? = nil) -> StationStatus {
        let paths = StationPaths.resolve(configuration, environment: environment)
        let file = live?.file ?? AgentStatusFile.read(paths.agentStatusFile)
        let alive = live != nil || (file?.processAlive ?? false)
        let snapshot = alive ? file?.snapshot : nil
        var missing: [String] = []
        if !alive { missing.append("agent: not running (start it with `edge run`)") }

        let parts = (snapshot?.parts ?? [:]).sorted { $0.key < $1.key }.map {
            Part(name: $0.key, state: $0.value.state.rawValue, reason: $0.value.reason, since: $0.value.since, attempts: $0.value.attempts,
                 retryAt: $0.value.retryAt)
        }
        for part in parts where part.state == "waiting" || part.state == "failed" {
            missing.append("\(part.name): \(part.reason ?? part.state)" + (part.retrying(now: now).map { " (\($0))" } ?? ""))
        }
        var cameras = configuration.station.cameras.map { camera in
            snapshot?.cameras[camera.name] ?? AgentState.Camera(name: camera.name, device: camera.device, up: false, detail: alive ? "starting" : "agent not running",
                                                                frames: 0, events: 0)
        }
        cameras.sort { $0.name < $1.name }
        for camera in cameras where alive && !camera.up {
            missing.append("camera \(camera.name): \(camera.detail ?? "down") (\(camera.device))")
        }

        var queue: Queue?
        var scanEvents: ScanEvents?
        if live != nil || FileManager.default.fileExists(atPath: paths.database) {
            do {
                let database: EdgeDatabase
                if let live { database = live.database } else { database = try EdgeDatabase(path: paths.database) }
                let outbox = Outbox(database: database)
                let status = try outbox.status(now: now)
                let holds = status.holds.map(Hold.init)
                for hold in holds where hold.fault { missing.append(hold.attention) }
                let paused = status.sender.isPaused(now: now) ? (status.sender.pauseReason ?? "consecutive failures") : nil
                if let paused { missing.append("sending paused: \(paused)") }
                queue = Queue(database: paths.database, depth: status.depth, oldestAgeSeconds: status.oldestEntryAge,
                              deadLetters: status.deadLetterCount, conflicts: status.conflictCount, paused: paused,
                              upgradeRequired: status.sender.upgradeMessage, lastPush: status.lastPush, lastPull: status.lastPull,
                              lastPullError: snapshot?.lastPullError, holds: holds)
                let log = ScanEventLog(database: database)
                scanEvents = ScanEvents(total: try log.count(), recent: try log.recent(limit: 5))
                if live == nil { try? database.close() }
            } catch {
                missing.append("database: \(error.message)")
            }
        } else {
            missing.append("database: none yet at \(paths.database) (`edge run` creates it)")
        }
        let damaged = DamagedDatabase.list(beside: paths.database).map { file in
            DamagedDatabaseFile(path: file.path, movedAt: file.movedAt, reason: file.reason, salvaged: file.salvage,
                                salvageCommand: "edge sync salvage " + StationStatus.shellQuoted(file.path))
        }
        // Until it is salvaged the kept file holds queued work the backend has not seen.
        for file in damaged where file.salvaged == nil {
            missing.append("database: a damaged database was moved aside to \(file.path) and a fresh one started (\(file.reason)); re-queue its entries with `\(file.salvageCommand)`")
        }
        let storage = live?.storage ?? StorageReport.assess(StorageReport.places(paths) + (snapshot?.storagePlaces ?? [:]).sorted { $0.key < $1.key }
                                                                .map { (holds: $0.key, directory: $0.value) },
                                                            failures: snapshot?.storageFailures ?? [:])
        // Only a failing disk is missing; a low one is told in `storage` (see StorageReport).
        if storage.state == .failed { missing.append("storage: \(storage.failures)") }
        if configuration.sync == nil { missing.append("sync: not configured (no sync section): nothing is sent to a backend") }
        if let error = snapshot?.lastPullError { missing.append("pull: \(error)") }

        if alive, let warning = file?.vaultWarning { missing.append("vault: \(warning); secrets are protected by the key file only") }
        let vault = Vault(directory: paths.vaultDirectory, keyDirectory: paths.vaultKeyDirectory, backend: alive ? file?.vaultBackend : nil, reason: alive ? file?.vaultReason : nil,
                          error: alive ? file?.vaultError : nil)
        return StationStatus(edge: .current, station: configuration.station.name, role: configuration.station.role.rawValue, configuration: configuration.path,
                             agent: Agent(running: alive, pid: alive ? file?.pid : nil, startedAt: alive ? file?.startedAt : nil,
                                          updatedAt: file?.updatedAt, restartPending: snapshot?.restartPending ?? [],
                                          lastReloadError: snapshot?.lastReloadError, metrics: snapshot?.metricsAddress,
                                          ui: snapshot?.uiAddress, edge: alive ? file?.edge : nil),
                             parts: parts, cameras: cameras, queue: queue, vault: vault, scanEvents: scanEvents, missing: missing,
                             damagedDatabases: damaged, storage: storage)
    }

    /// `path` as one shell word (single quotes unless it is plain).
    static func shellQuoted(_ path: String) -> String {
        let plain = !path.isEmpty && path.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || "/._-+:@".utf8.contains(byte)
        }
        return plain ? path : "'" + path.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    /// The JSON document, snake_case keys, sorted.
    public func json() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys]
        return Array(try encoder.encode(self))
    }
}
