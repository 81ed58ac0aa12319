import EdgeCapture
import EdgeCore
import EdgeCrypto
import EdgeFCM
import EdgeHTTP
import EdgeImaging
import EdgePush
import EdgeStore
import EdgeSync
import EdgeVault
import FoundationEssentials
import GRDB
import Glibc
import Logging
import ServiceLifecycle
import Synchronization
import UnixSignals

/// What `buildAgent` takes besides the configuration: the seams tests and `edge run` choose.
public struct AgentDependencies: Sendable {
    public var environment: [String: String] = ProcessInfo.processInfo.environment
    public var logger = Logger(label: "edge")
    /// Frames for a configured camera: `replay:` files, else the V4L2 node.
    public var makeFrameSource: @Sendable (StationCamera, [String: CaptureConfiguration]) -> any FrameSource = { camera, models in
        if let files = camera.replayFiles { return ReplayFrameSource(files: files, fps: camera.fps) }
        // Validated with the configuration, so the override cannot fail here.
        return V4L2FrameSource(device: camera.device, models: models, override: (try? camera.captureOverride()) ?? nil)
    }
    /// How long a part that cannot start waits before it is tried again: 1, 2, 4 ... 60 s
    /// (`SupervisedService`); tests shorten it.
    public var retry: BackoffPolicy = .standard
    /// Opens the station's vault; nil: `StationVault.open` for the configuration. Tests give one
    /// that fails until they let it open.
    public var openVault: (@Sendable (StationConfiguration, StationPaths) throws(VaultError) -> StationVault)?
    /// The station's wall clock, Unix seconds: the one the agent and its capabilities read
    /// (`StationContext.now`), so a test can step it.
    public var now: @Sendable () -> Double = { Date().timeIntervalSince1970 }
    /// SIGTERM/SIGINT shut the group down gracefully and SIGHUP reloads (`edge run`); tests
    /// leave the signals alone and call `shutdown()` / `reload`.
    public var handleSignals = false
    /// The capabilities' migrations, after the store's own (`SchemaMigration`); `buildStation`
    /// gives every station all of them (`StationSchema.migrations`).
    public var migrations: [SchemaMigration] = []
    /// The capabilities' outbox kinds (`OutboxKind`: own endpoints, delivery confirmations);
    /// `buildStation` gives every station all of them (`StationSchema.outboxKinds`).
    public var outboxKinds: [OutboxKind] = []
    /// What the station's role turns on (enrollment, receiving, the local web UI), in the order
    /// they are given their context; `buildStation` chooses them, tests may add their own.
    public var capabilities: [any StationCapability] = []

    public init() {}
}

/// Builds the station (AGT-1): opens the store, the vault and the metrics, gives each capability
/// its context, and composes every long-running part as a `Service` in one `ServiceGroup`. The
/// seam `edge run` (through `buildStation`) and tests call.
///
/// Only a database that cannot be opened stops the build: without it nothing can be kept. A
/// part that cannot start (no camera, no backend, no vault secret, no TPM) is reported in the
/// agent's state and retried while the others run (offline-first).
public func buildAgent(_ configuration: StationConfiguration, dependencies: AgentDependencies = AgentDependencies())
    throws(AgentPartError) -> Agent {
    try Agent(configuration: configuration, dependencies: dependencies)
}

public final class Agent: Sendable {
    public let paths: StationPaths
    public let state = AgentState()
    public let metrics = AgentMetrics()
    /// The disks the station writes to: free space, read-only, failed writes (issue #30 item 1).
    public let storage: StorageMonitor
    public let router = ChangeRouter()
    /// Where a capability decides what a rejected credential of its own means (ENR-10).
    public let rejections = CredentialRejectionRouter()
    /// Facts after commit (scans, lookups, enrollment changes), for screens and capabilities.
    public let facts = StationFacts()
    public let outbox: Outbox
    public let events: ScanEventLog
    /// The station's vault once it is open (it may open after the start: the `vault` part).
    public let vaultAccess: StationVaultAccess
    public var vault: StationVault? { vaultAccess.vault }
    public let logger: Logger
    /// What capabilities were given (the same for all).
    public let context: StationContext
    private let configurationState: Locked<StationConfiguration>
    /// The file the parts started with: what a reload must wait for a restart for is measured
    /// against it, so a change stays listed across later reloads until the restart.
    private let startedDocument: Data?
    /// The capabilities' sections the starting configuration was checked with; every reload
    /// checks the file with them too (AGT-10).
    private let configurationSections: [ConfigurationSection]
    private let cameras: CameraSupervisor
    private let pullWake = WakeSignal()
    private let group: ServiceGroup
    private let pushRelay = Locked<PushRelay?>(nil)
    /// The sync backend's one transport (sender, puller, capabilities), nil without a sync section.
    private let backend: BackendTransport?

    public var configuration: StationConfiguration { configurationState.get() }

    init(configuration: StationConfiguration, dependencies: AgentDependencies) throws(AgentPartError) {
        let logger = dependencies.logger
        self.logger = logger
        paths = StationPaths.resolve(configuration, environment: dependencies.environment)
        let configurationState = Locked(configuration)
        self.configurationState = configurationState
        startedDocument = configuration.document
        configurationSections = configuration.sections
        try paths.createStateDirectory()
        // A damaged file is moved aside and a fresh one started (issue #30 item 3).
        let database = try StationDatabase.open(paths, migrations: dependencies.migrations, now: dependencies.now(), logger: logger)
        outbox = Outbox(database: database, limits: configuration.sync?.limits ?? .standard)
        events = ScanEventLog(database: database)

        let station = configuration.station
        let now = dependencies.now
        let startedAt = now()
        let retries = PartRetries()
        let paths = self.paths
        let environment = dependencies.environment
        let openVault = dependencies.openVault
        let vaultAccess = StationVaultAccess { () throws(VaultError) -> StationVault in
            if let openVault { return try openVault(configuration, paths) }
            return try StationVault.open(configuration, paths: paths, environment: environment)
        }
        self.vaultAccess = vaultAccess
        // The first attempt now, so that in the usual case every part finds the vault open; when
        // it fails, the `vault` part below tries again with backoff (issue #28 item 4).
        let vaultOpenedAtStart: Bool
        do throws(VaultError) {
            Self.opened(try vaultAccess.attempt(), state: state, logger: logger)
            vaultOpenedAtStart = true
        } catch {
            logger.error("vault not available; retrying", metadata: ["event": "vault.unavailable", "reason": "\(error.message)"])
            state.setPart("vault", .waiting, reason: error.message)
            vaultOpenedAtStart = false
        }

        let backend = configuration.sync.map(BackendTransport.init)
        self.backend = backend
        let storage = StorageMonitor(paths: paths, state: state, metrics: metrics, facts: facts, logger: logger, now: now)
        self.storage = storage
        let models = configuration.cameraModels
        let makeSource = dependencies.makeFrameSource
        cameras = CameraSupervisor(cameras: station.cameras, context: Self.cameraContext(configuration),
                                   recorder: ScanEventRecorder(outbox: outbox, hashKey: { vaultAccess.hashKey }), metrics: metrics, state: state,
                                   facts: facts, logger: logger, storage: storage, readerOptions: configuration.scanning.apply(to: .cameraFrame()),
                                   retry: dependencies.retry, makeSource: { camera in makeSource(camera, models) })
        context = StationContext(paths: paths, state: state, outbox: outbox, events: events, vaultAccess: vaultAccess, storage: storage, logger: logger,
                                 router: router, rejections: rejections, facts: facts, startedAt: startedAt, now: now,
                                 configurationState: configurationState, environment: dependencies.environment,
                                 retry: dependencies.retry, retries: retries, cameras: cameras, backend: backend,
                                 wakeRelay: { [pushRelay] in pushRelay.withLock { $0 }?.wake() })

        // The shutdown order (issue #27 item 2). ServiceGroup starts the services in this order
        // and stops them one at a time in reverse, each finished before the next is told, so the
        // list runs from what must stop last to what must stop first:
        //   store side:  status file (records the stop), queue and storage monitors, metrics;
        //   senders:     push relay, outbox sender, puller, then the capabilities' senders;
        //   inputs:      the cameras, then the capabilities' inputs (the kiosk), SIGHUP;
        //   systemd:     STOPPING=1 goes out before anything stops.
        // So at SIGTERM: STOPPING=1, no new input (frames, screens), the senders finish what is in
        // flight, and the database is the last thing written. `AgentTests` asserts it.
        let statusFile = AgentStatusService(path: paths.agentStatusFile, state: state, vault: vaultAccess, storage: storage,
                                            base: AgentStatusFile(pid: getpid(), running: true, startedAt: startedAt,
                                                                  updatedAt: 0, configuration: configuration.path,
                                                                  snapshot: AgentState.Snapshot()))
        var storeSide: [any Service] = [statusFile, QueueMonitorService(outbox: outbox, metrics: metrics, facts: facts), storage]
        if !vaultOpenedAtStart {
            // First of the parts that may retry: the others that need the vault are woken when it opens.
            storeSide.append(context.supervised("vault") { [state, logger, facts] in
                let vault: StationVault
                do throws(VaultError) {
                    vault = try vaultAccess.attempt()
                } catch {
                    throw AgentPartError(.vaultUnavailable, error.message)
                }
                Self.opened(vault, state: state, logger: logger)
                facts.publish(VaultOpened(backend: vault.backend))
                retries.retryNow()
                return UntilShutdown()
            })
        }
        var senders: [any Service] = []
        var inputs: [any Service] = [cameras]

        if let address = station.metrics.flatMap(MetricsAddress.init) {
            storeSide.append(context.supervised("metrics") { [metrics, logger, state] in
                MetricsServer(address: address, metrics: metrics, logger: logger, state: state)
            })
        }
        // Push first: the sync parts route pulled notifications and delivered GRNs to it.
        if let push = configuration.push {
            do {
                let store = try PushStore(database: database, stationZone: StationParts.stationZone(push))
                StationParts.registerPushIntake(PushIntake(store: store, receivingTeam: push.receivingTeam), on: router,
                                                kinds: dependencies.outboxKinds) { [metrics] report in
                    metrics.recordPushIntake(report)
                }
                senders.append(context.supervised("push") { [metrics, logger, pushRelay] in
                    let parts = try StationParts.pushRelay(settings: push, store: store, vault: try vaultAccess.require())
                    pushRelay.withLock { $0 = parts.relay }
                    return PushRelayService(parts: parts, metrics: metrics, logger: logger)
                })
            } catch {
                state.setPart("push", .failed, reason: "push.station_zone: \(error.message)")
            }
        } else {
            state.setPart("push", .stopped, reason: "not configured (no push section)")
        }

        if let sync = configuration.sync, let backend {
            let outbox = self.outbox
            let router = self.router
            let rejections = self.rejections
            let kinds = dependencies.outboxKinds
            senders.append(context.supervised("sender") { [metrics, pullWake, logger] in
                let (identity, tokens) = try Self.syncIdentity(vault: try vaultAccess.require(), sync: sync, push: configuration.push)
                let lock: SenderLock
                do throws(SyncError) {
                    lock = try SenderLock(databasePath: outbox.database.path)
                } catch {
                    throw AgentPartError(.storeFailed, error.message)
                }
                return SenderService(sender: StationParts.sender(outbox: outbox, transport: try Self.transport(backend), tokens: tokens,
                                                                 settings: sync, identity: identity, router: router, kinds: kinds,
                                                                 rejections: rejections, logger: logger),
                                     metrics: metrics, pull: pullWake, lock: lock)
            })
            senders.append(context.supervised("puller") { [metrics, pullWake, state, logger] in
                let (identity, tokens) = try Self.syncIdentity(vault: try vaultAccess.require(), sync: sync, push: configuration.push)
                return PullService(outbox: outbox, transport: try Self.transport(backend), tokens: tokens, settings: sync, identity: identity,
                                   router: router, interval: .seconds(station.pullInterval), wake: pullWake, metrics: metrics,
                                   state: state, logger: logger)
            })
        } else {
            state.setPart("sender", .stopped, reason: "not configured (no sync section)")
            state.setPart("puller", .stopped, reason: "not configured (no sync section)")
        }

        // Every capability gets its context before the group exists, so its services take their
        // place in the order above and its subscriptions are open before the first frame.
        //
        // One that cannot start yet (no vault, no kiosk PIN) is retried like any part (issue #28
        // item 4): a supervised part asks it again with backoff and, once it contributes, runs its
        // services as one group, inputs stopping before senders as above. Decision: such a late
        // capability stops with the inputs, a little earlier than its senders would have; its
        // subscriptions open when it starts, so it sees the facts from then on.
        let context = self.context
        for capability in dependencies.capabilities {
            do {
                let contributed = try capability.contribute(to: context)
                senders.append(contentsOf: contributed.senders)
                inputs.append(contentsOf: contributed.inputs)
            } catch {
                logger.error("capability not started; retrying", metadata: ["event": "part.waiting", "part": "\(capability.name)",
                                                                            "reason": "\(error)"])
                state.setPart(capability.name, .waiting, reason: "\(error)")
                inputs.append(SupervisedService(name: capability.name, state: state, logger: logger, retry: dependencies.retry, retries: retries,
                                                now: now, rebuilds: false) {
                    let contributed = try capability.contribute(to: context)
                    return ServiceGroup(configuration: ServiceGroupConfiguration(
                        services: (contributed.senders + contributed.inputs).map { .init(service: $0) }, logger: logger))
                })
            }
        }
        let hangups = dependencies.handleSignals ? HangupService() : nil
        if let hangups { inputs.append(hangups) }
        let systemd = SystemdService(notifier: SystemdNotifier(environment: dependencies.environment),
                                     watchdog: SystemdNotifier.watchdogInterval(environment: dependencies.environment))
        var groupConfiguration = ServiceGroupConfiguration(services: (storeSide + senders + inputs + [systemd]).map { .init(service: $0) },
                                                           logger: logger)
        if dependencies.handleSignals {
            groupConfiguration.gracefulShutdownSignals = [.sigterm, .sigint]
        }
        group = ServiceGroup(configuration: groupConfiguration)
        state.update { $0.configurationLoadedAt = startedAt }
        hangups?.agent.set(self)
    }

    /// Runs every part until graceful shutdown (SIGTERM/SIGINT with `handleSignals`, or
    /// `shutdown()`); returns when all of them have stopped.
    public func run() async throws {
        logger.info("agent started", metadata: ["event": "agent.started", "database": "\(paths.database)", "cameras": "\(configuration.station.cameras.count)"])
        defer { facts.finish() }
        // The parts share the backend's transport: it closes once none of them runs.
        defer { backend?.shutdown() }
        // Every part's tasks on the station's own fixed set of threads (StationExecutor says why).
        try await withTaskExecutorPreference(StationExecutor.shared) {
            try await group.run()
        }
        logger.info("agent stopped", metadata: ["event": "agent.stopped"])
    }

    /// Stops taking frames, lets the transactions in flight finish, closes connections.
    public func shutdown() async {
        await group.triggerGracefulShutdown()
    }

    /// Pull now (and at the interval as before).
    public func wakePuller() { pullWake.wake() }

    /// The next frame of a configured camera (photo evidence from the kiosk, UI-2).
    public func still(camera: String, timeout: Duration = .seconds(5)) async throws -> GrayImage {
        try await cameras.still(camera: camera, timeout: timeout)
    }

    /// Wakes the push relay, e.g. after a capability queued a notification.
    public func wakePushRelay() { context.wakePushRelay() }

    /// SIGHUP (AGT-2): applies a new configuration. What changes live and what waits for a
    /// restart is `ReloadPlan`'s, key by key over the whole file; the second list is
    /// `restartPending`, which this returns.
    @discardableResult
    public func reload(_ new: StationConfiguration) async -> [String] {
        let plan = ReloadPlan(old: configuration.document, new: new.document)
        let pending = ReloadPlan(old: startedDocument, new: new.document).restart
        configurationState.set(new)
        await cameras.apply(cameras: new.station.cameras, context: Self.cameraContext(new))
        state.update {
            $0.restartPending = pending
            $0.configurationLoadedAt = context.now()
            $0.lastReloadError = nil
        }
        logger.notice("configuration reloaded", metadata: ["event": "agent.reloaded", "applied": "\(plan.live.joined(separator: ","))",
                                                           "restart_pending": "\(pending.joined(separator: ","))"])
        pullWake.wake()
        return pending
    }

    /// Reloads from the configuration's file; an invalid file (a bad value, an unknown key) is
    /// refused with every reason, one log line each, and the running configuration stays
    /// (AGT-2, AGT-10). Throws the first problem.
    public func reloadFromFile() async throws(StationConfigurationError) {
        guard let path = configuration.path else { return }
        let (new, problems) = StationConfiguration.evaluate(path: path, sections: configurationSections)
        guard let new else {
            let first = problems.first ?? StationConfigurationError(.invalid, keyPath: "", "is not valid", file: path)
            state.update { $0.lastReloadError = problems.map(\.message).joined(separator: "; ") }
            for problem in problems {
                logger.error("configuration refused; the running one stays", metadata: ["event": "agent.reload_refused", "reason": "\(problem.message)"])
            }
            throw first
        }
        await reload(new)
    }

    static func cameraContext(_ configuration: StationConfiguration) -> CameraSupervisor.Context {
        CameraSupervisor.Context(classifier: configuration.classifier(), policy: configuration.station.scanEvents,
                                 repeatGap: .milliseconds(Int64(configuration.station.repeatGap * 1000)))
    }

    /// The vault opened (at start or later): its backend in status, and the moves and refusals
    /// it made in the log.
    private static func opened(_ vault: StationVault, state: AgentState, logger: Logger) {
        for old in vault.movedKeys {
            logger.notice("vault keys moved to the key directory", metadata: ["event": "vault.keys_moved", "from": "\(old)", "to": "\(vault.keyDirectory)"])
        }
        if let refusal = vault.tpmRefusal {
            logger.warning("TPM refused; the vault uses the key file", metadata: ["event": "vault.tpm_refused", "reason": "\(refusal)"])
        }
        state.setPart("vault", .running, reason: "\(vault.backend) (\(vault.backendReason))")
    }

    private static func syncIdentity(vault: StationVault, sync: SyncSettings, push: PushSettings?) throws(AgentPartError) -> (SyncIdentity, VaultTokenProvider) {
        let deviceID: String
        do {
            deviceID = try vault.deviceID()
        } catch {
            throw AgentPartError(.vaultUnavailable, "vault: \(error.message)")
        }
        return (StationParts.identity(deviceID: deviceID, push: push), VaultTokenProvider(vault: vault, stationSecret: sync.tokenSecret))
    }

    private static func transport(_ backend: BackendTransport) throws(AgentPartError) -> CurlTransport {
        do {
            return try backend.transport()
        } catch {
            throw AgentPartError(.transportFailed, error.message)
        }
    }
}

/// A part whose work was done when it was built (the vault, once open): it holds its place in
/// the group until shutdown, so its supervisor does not build it again.
struct UntilShutdown: Service {
    func run() async throws {
        try? await gracefulShutdown()
    }
}

/// SIGHUP → reload from the file (AGT-2).
/// Made before the agent it reloads, which is set once the agent exists (weakly: the group
/// that holds this service belongs to the agent).
struct HangupService: Service {
    let agent = WeakAgent()

    func run() async throws {
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        await cancelWhenGracefulShutdown {
            for await _ in hangups {
                try? await agent.get()?.reloadFromFile()
            }
        }
    }
}

final class WeakAgent: Sendable {
    private let agent = Locked<WeakBox>(WeakBox())
    private struct WeakBox { weak var agent: Agent? }
    func set(_ value: Agent) { agent.withLock { $0.agent = value } }
    func get() -> Agent? { agent.withLock { $0.agent } }
}

/// Outbox depth, oldest age and holds into the metrics every 5 seconds (AGT-7), and the depth to
/// the fact stream when it changed (screens show it without asking the database).
struct QueueMonitorService: Service {
    let outbox: Outbox
    let metrics: AgentMetrics
    let facts: StationFacts

    func run() async throws {
        var last: QueueChanged?
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            if let status = try? outbox.status() {
                let faults = status.holds.filter(\.kind.isFault).count
                metrics.setOutbox(depth: status.depth, oldestAge: status.oldestEntryAge, heldCredentials: faults,
                                  waitingCredentials: status.holds.count - faults)
                let now = QueueChanged(depth: status.depth, held: faults)
                if now != last { facts.publish(now) }
                last = now
            }
            await Task.sleepUnlessShuttingDown(for: .seconds(5))
        }
    }
}

/// The outbox's depth and held credentials changed (told by the queue monitor).
public struct QueueChanged: StationFact, Equatable {
    public let depth: Int
    /// Holds that are faults; expected waits (`HoldKind.isFault` false) are not counted.
    public let held: Int
}
