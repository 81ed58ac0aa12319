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
    /// How long a part that cannot start waits before it is tried again.
    public var retryInterval: Duration = .seconds(15)
    /// SIGTERM/SIGINT shut the group down gracefully and SIGHUP reloads (`edge run`); tests
    /// leave the signals alone and call `shutdown()` / `reload`.
    public var handleSignals = false
    /// Later capabilities (enrollment, receiving, the local web UI) add their services here.
    public var capabilities: [any AgentCapability] = []

    public init() {}
}

/// A capability that plugs into the agent (AGT-1, AGT-5): registers its routes and returns the
/// services it runs.
public protocol AgentCapability: Sendable {
    var name: String { get }
    func register(in agent: Agent) throws -> [any Service]
}

/// Builds the station (AGT-1): opens the store, the vault and the metrics, and composes every
/// long-running part as a `Service` in one `ServiceGroup`. The seam `edge run` and tests call.
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
    public let router = ChangeRouter()
    /// Where a capability decides what a rejected credential of its own means (ENR-10).
    public let rejections = CredentialRejectionRouter()
    public let outbox: Outbox
    public let events: ScanEventLog
    /// nil when the vault could not be opened at start (status says why).
    public let vault: StationVault?
    public let logger: Logger
    /// How long a part that cannot start waits before it is tried again.
    public let retryInterval: Duration
    private let configurationState: Mutex<StationConfiguration>
    private let cameras: CameraSupervisor
    private let pullWake = WakeSignal()
    private let group: ServiceGroup
    private let pushRelay = Locked<PushRelay?>(nil)

    public var configuration: StationConfiguration { configurationState.withLock { $0 } }

    init(configuration: StationConfiguration, dependencies: AgentDependencies) throws(AgentPartError) {
        let logger = dependencies.logger
        self.logger = logger
        retryInterval = dependencies.retryInterval
        paths = StationPaths.resolve(configuration, environment: dependencies.environment)
        configurationState = Mutex(configuration)
        try paths.createStateDirectory()
        let database: EdgeDatabase
        do {
            database = try EdgeDatabase(path: paths.database)
        } catch {
            throw AgentPartError(.storeFailed, error.message)
        }
        outbox = Outbox(database: database, limits: configuration.sync?.limits ?? .standard)
        events = ScanEventLog(database: database)

        let station = configuration.station
        var openedVault: StationVault?
        do {
            setenv("TSS2_LOG", "all+NONE", 0)
            let choice = VaultBackendChoice(rawValue: station.vaultBackend) ?? .auto
            let tcti = station.tcti ?? dependencies.environment["EDGE_TCTI"] ?? "device:/dev/tpmrm0"
            openedVault = StationVault(try Vault(directory: paths.vaultDirectory, keyDirectory: paths.vaultKeyDirectory, backend: choice, tcti: tcti))
        } catch {
            logger.error("vault not available", metadata: ["event": "vault.unavailable", "reason": "\(error.message)"])
            state.setPart("vault", .failed, reason: error.message)
        }
        vault = openedVault
        let hashKey: SecureBytes?
        if let openedVault {
            do {
                hashKey = try openedVault.hashKey()
                state.setPart("vault", .running, reason: "\(openedVault.backend) (\(openedVault.backendReason))")
                if let refusal = openedVault.tpmRefusal {
                    logger.warning("TPM refused; the vault uses the key file", metadata: ["event": "vault.tpm_refused", "reason": "\(refusal)"])
                }
            } catch {
                hashKey = nil
                state.setPart("vault", .failed, reason: error.message)
            }
        } else {
            hashKey = nil
        }

        let models = configuration.cameraModels
        let makeSource = dependencies.makeFrameSource
        cameras = CameraSupervisor(cameras: station.cameras, context: Self.cameraContext(configuration),
                                   recorder: ScanEventRecorder(outbox: outbox, hashKey: hashKey), metrics: metrics, state: state,
                                   logger: logger, readerOptions: configuration.scanning.apply(to: .cameraFrame()),
                                   makeSource: { camera in makeSource(camera, models) })
        // ServiceGroup shuts services down one by one in reverse order, so the list runs from
        // what must stop last (the status file, which records the stop) to what must stop first
        // (the cameras: no new events once shutdown begins), then the systemd notifier (its
        // STOPPING=1 goes out first of all).
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []

        services.append(.init(service: QueueMonitorService(outbox: outbox, metrics: metrics)))
        services.append(.init(service: AgentStatusService(path: paths.agentStatusFile, state: state,
                                                          base: AgentStatusFile(pid: getpid(), running: true, startedAt: Date().timeIntervalSince1970,
                                                                                updatedAt: 0, configuration: configuration.path,
                                                                                vaultBackend: openedVault?.backend,
                                                                                vaultReason: openedVault?.backendReason,
                                                                                vaultError: openedVault == nil ? state.current.parts["vault"]?.reason : nil,
                                                                                vaultWarning: openedVault?.tpmRefusal,
                                                                                snapshot: AgentState.Snapshot()))))
        if let address = station.metrics.flatMap(MetricsAddress.init) {
            services.append(.init(service: Self.supervised("metrics", dependencies, state, logger) { [metrics, logger, state] in
                MetricsServer(address: address, metrics: metrics, logger: logger, state: state)
            }))
        }
        // Push first: the sync parts route pulled notifications and delivered GRNs to it.
        if let push = configuration.push {
            do {
                let store = try PushStore(database: database, stationZone: StationParts.stationZone(push))
                StationParts.registerPushIntake(PushIntake(store: store, receivingTeam: push.receivingTeam), on: router) { [metrics] report in
                    metrics.recordPushIntake(report)
                }
                services.append(.init(service: Self.supervised("push", dependencies, state, logger) { [vault = openedVault, metrics, logger, pushRelay] in
                    guard let vault else { throw AgentPartError(.vaultUnavailable, "the vault could not be opened; see the vault part") }
                    let parts = try StationParts.pushRelay(settings: push, store: store, vault: vault)
                    pushRelay.withLock { $0 = parts.relay }
                    return PushRelayService(parts: parts, metrics: metrics, logger: logger)
                }))
            } catch {
                state.setPart("push", .failed, reason: "push.station_zone: \(error.message)")
            }
        } else {
            state.setPart("push", .stopped, reason: "not configured (no push section)")
        }

        if let sync = configuration.sync {
            let outbox = self.outbox
            let router = self.router
            let rejections = self.rejections
            services.append(.init(service: Self.supervised("sender", dependencies, state, logger) { [vault = openedVault, metrics, pullWake, logger] in
                let (identity, tokens) = try Self.syncIdentity(vault: vault, sync: sync, push: configuration.push)
                let lock: SenderLock
                do throws(SyncError) {
                    lock = try SenderLock(databasePath: outbox.database.path)
                } catch {
                    throw AgentPartError(.storeFailed, error.message)
                }
                let transport = try Self.transport(sync)
                return SenderService(sender: StationParts.sender(outbox: outbox, transport: transport, tokens: tokens, settings: sync,
                                                                 identity: identity, router: router, rejections: rejections, logger: logger),
                                     transport: transport, metrics: metrics, pull: pullWake, lock: lock)
            }))
            services.append(.init(service: Self.supervised("puller", dependencies, state, logger) { [vault = openedVault, metrics, pullWake, state, logger] in
                let (identity, tokens) = try Self.syncIdentity(vault: vault, sync: sync, push: configuration.push)
                return PullService(outbox: outbox, transport: try Self.transport(sync), tokens: tokens, settings: sync, identity: identity,
                                   router: router, interval: .seconds(station.pullInterval), wake: pullWake, metrics: metrics,
                                   state: state, logger: logger)
            }))
        } else {
            state.setPart("sender", .stopped, reason: "not configured (no sync section)")
            state.setPart("puller", .stopped, reason: "not configured (no sync section)")
        }

        services.append(.init(service: cameras))
        var groupConfiguration = ServiceGroupConfiguration(services: services, logger: logger)
        if dependencies.handleSignals {
            groupConfiguration.gracefulShutdownSignals = [.sigterm, .sigint]
        }
        // Built last of the parts so that READY=1 follows the store, vault and every service.
        groupConfiguration.services.append(.init(service: SystemdService(notifier: SystemdNotifier(environment: dependencies.environment),
                                                                         watchdog: SystemdNotifier.watchdogInterval(environment: dependencies.environment))))
        group = ServiceGroup(configuration: groupConfiguration)
        state.update { $0.configurationLoadedAt = Date().timeIntervalSince1970 }
        if dependencies.handleSignals {
            let hangups = HangupService(agent: self)
            hangupService.withLock { $0 = hangups }
        }
        for capability in dependencies.capabilities {
            do {
                let added = try capability.register(in: self)
                pendingServices.withLock { $0.append(contentsOf: added) }
            } catch {
                state.setPart(capability.name, .failed, reason: "\(error)")
            }
        }
    }

    private let hangupService = Locked<HangupService?>(nil)
    private let pendingServices = Locked<[any Service]>([])

    /// Runs every part until graceful shutdown (SIGTERM/SIGINT with `handleSignals`, or
    /// `shutdown()`); returns when all of them have stopped.
    public func run() async throws {
        for service in pendingServices.withLock({ $0 }) { await group.addServiceUnlessShutdown(service) }
        if let hangups = hangupService.withLock({ $0 }) { await group.addServiceUnlessShutdown(hangups) }
        logger.info("agent started", metadata: ["event": "agent.started", "database": "\(paths.database)", "cameras": "\(configuration.station.cameras.count)"])
        try await group.run()
        logger.info("agent stopped", metadata: ["event": "agent.stopped"])
    }

    /// Stops taking frames, lets the transactions in flight finish, closes connections.
    public func shutdown() async {
        await group.triggerGracefulShutdown()
    }

    /// Pull now (and at the interval as before).
    public func wakePuller() { pullWake.wake() }

    /// Every read the cameras record, with its text (in memory; the kiosk's clinic screen).
    public func onCameraRead(_ listener: @escaping @Sendable (CameraSupervisor.CameraRead) -> Void) {
        cameras.onRead(listener)
    }

    /// The next frame of a configured camera (photo evidence from the kiosk, UI-2).
    public func still(camera: String, timeout: Duration = .seconds(5)) async throws -> GrayImage {
        try await cameras.still(camera: camera, timeout: timeout)
    }

    /// Wakes the push relay, e.g. after a capability queued a notification.
    public func wakePushRelay() { pushRelay.withLock { $0 }?.wake() }

    /// SIGHUP (AGT-2): applies a new configuration. Cameras, payload classes, sponsors, the
    /// scan-event policy and the repeat gap change live (an unchanged camera keeps streaming);
    /// sections that hold connections or files (sync, push, paths, vault, metrics) are listed
    /// in `restartPending` and take effect at the next start. Returns that list.
    @discardableResult
    public func reload(_ new: StationConfiguration) async -> [String] {
        let old = configuration
        var pending: [String] = []
        if old.sync != new.sync { pending.append("sync") }
        if old.push != new.push { pending.append("push") }
        if StationPaths.resolve(old) != StationPaths.resolve(new) { pending.append("station.state_dir/vault_dir") }
        if old.station.vaultBackend != new.station.vaultBackend || old.station.tcti != new.station.tcti { pending.append("station.vault_backend") }
        if old.station.metrics != new.station.metrics { pending.append("station.metrics") }
        if old.station.pullInterval != new.station.pullInterval { pending.append("station.pull_interval") }
        if old.cameraModels != new.cameraModels { pending.append("cameras") }
        if old.scanning != new.scanning { pending.append("scanning") }
        configurationState.withLock { $0 = new }
        await cameras.apply(cameras: new.station.cameras, context: Self.cameraContext(new))
        state.update {
            $0.restartPending = pending
            $0.configurationLoadedAt = Date().timeIntervalSince1970
            $0.lastReloadError = nil
        }
        logger.notice("configuration reloaded", metadata: ["event": "agent.reloaded", "restart_pending": "\(pending.joined(separator: ","))"])
        pullWake.wake()
        return pending
    }

    /// Reloads from the configuration's file; an invalid file is refused with the reason and
    /// the running configuration stays (AGT-2).
    public func reloadFromFile() async throws(StationConfigurationError) {
        guard let path = configuration.path else { return }
        do {
            let new = try StationConfiguration.load(path: path)
            await reload(new)
        } catch {
            state.update { $0.lastReloadError = error.message }
            logger.error("configuration refused; the running one stays", metadata: ["event": "agent.reload_refused", "reason": "\(error.message)"])
            throw error
        }
    }

    /// A capability's part supervised like the agent's own (AGT-1): when it cannot start or ends
    /// with an error, the reason goes to the state and the log and it is tried again, while every
    /// other part keeps running (a failing kiosk must not stop the cameras).
    public func supervised(_ name: String, _ make: @escaping @Sendable () async throws -> any Service) -> any Service {
        state.setPart(name, .starting)
        return SupervisedService(name: name, state: state, logger: logger, retryInterval: retryInterval, make: make)
    }

    private static func supervised(_ name: String, _ dependencies: AgentDependencies, _ state: AgentState, _ logger: Logger,
                                   _ make: @escaping @Sendable () async throws -> any Service) -> SupervisedService {
        state.setPart(name, .starting)
        return SupervisedService(name: name, state: state, logger: logger, retryInterval: dependencies.retryInterval, make: make)
    }

    static func cameraContext(_ configuration: StationConfiguration) -> CameraSupervisor.Context {
        CameraSupervisor.Context(classifier: configuration.classifier(), policy: configuration.station.scanEvents,
                                 repeatGap: .milliseconds(Int64(configuration.station.repeatGap * 1000)))
    }

    private static func syncIdentity(vault: StationVault?, sync: SyncSettings, push: PushSettings?) throws(AgentPartError) -> (SyncIdentity, VaultTokenProvider) {
        guard let vault else { throw AgentPartError(.vaultUnavailable, "the vault could not be opened; see the vault part") }
        let deviceID: String
        do {
            deviceID = try vault.deviceID()
        } catch {
            throw AgentPartError(.vaultUnavailable, "vault: \(error.message)")
        }
        return (StationParts.identity(deviceID: deviceID, push: push), VaultTokenProvider(vault: vault, stationSecret: sync.tokenSecret))
    }

    private static func transport(_ sync: SyncSettings) throws(AgentPartError) -> CurlTransport {
        do {
            return try StationParts.syncTransport(sync)
        } catch {
            throw AgentPartError(.transportFailed, error.message)
        }
    }
}

/// SIGHUP → reload from the file (AGT-2).
struct HangupService: Service {
    let agent: Agent

    func run() async throws {
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        try await cancelWhenGracefulShutdown {
            for await _ in hangups {
                try? await agent.reloadFromFile()
            }
        }
    }
}

/// Outbox depth, oldest age and holds into the metrics every 5 seconds (AGT-7).
struct QueueMonitorService: Service {
    let outbox: Outbox
    let metrics: AgentMetrics

    func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            if let status = try? outbox.status() {
                metrics.setOutbox(depth: status.depth, oldestAge: status.oldestEntryAge, heldCredentials: status.holds.count)
            }
            await Task.sleepUnlessShuttingDown(for: .seconds(5))
        }
    }
}
