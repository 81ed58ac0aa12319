import EdgeCore
import Glibc
import EdgeImaging
import EdgeStore
import Logging
import ServiceLifecycle

/// A part of the station that its role turns on (enrollment, receiving, the kiosk): given the
/// station's context while the station is built, before the service group exists, it registers
/// its routes and returns its services. It never sees the `Agent` itself.
public protocol StationCapability: Sendable {
    var name: String { get }
    func contribute(to context: StationContext) throws -> StationServices
}

/// What a capability runs, by where it stops (issue #27 item 2): inputs stop before senders, so no
/// new work arrives while the senders finish what is in flight.
public struct StationServices: Sendable {
    /// Take work in: screens, scanners, servers (stopped with the cameras, first).
    public var inputs: [any Service]
    /// Send, upload, poll the backend (stopped after the inputs, before the store).
    public var senders: [any Service]

    public init(inputs: [any Service] = [], senders: [any Service] = []) {
        self.inputs = inputs
        self.senders = senders
    }
}

/// What a capability may reach of the running station: the store, the vault, the routers, the
/// fact stream, the live configuration, stills and supervision. Narrow on purpose: the agent's
/// own parts (cameras, senders, the group) stay its own.
public struct StationContext: Sendable {
    public let paths: StationPaths
    public let state: AgentState
    public let outbox: Outbox
    public let events: ScanEventLog
    /// The station's vault, which may open after the start (issue #28 item 4).
    public let vaultAccess: StationVaultAccess
    /// The disks the station writes to: a capability adds its own places (`watch`) and tells of
    /// failed writes there (issue #30 item 1).
    public let storage: StorageMonitor
    public let logger: Logger
    /// Pulled changes and delivered entries by kind (AGT-5).
    public let router: ChangeRouter
    /// Where a capability decides what a rejected credential of its own means (ENR-10).
    public let rejections: CredentialRejectionRouter
    /// The station's fact stream: publish after commit, subscribe before the group runs.
    public let facts: StationFacts
    /// Unix seconds the station was built (the kiosk tells a page left open across a restart).
    public let startedAt: Double
    /// The station's wall clock, Unix seconds (`AgentDependencies.now`).
    public let now: @Sendable () -> Double
    let configurationState: Locked<StationConfiguration>
    /// The environment the station resolved its paths with.
    let environment: [String: String]
    let retry: BackoffPolicy
    let retries: PartRetries
    let cameras: CameraSupervisor
    /// The sync backend's transport, shared with the agent's sender and puller (`BackendTransport`
    /// says why); nil when the file has no sync section.
    public let backend: BackendTransport?
    let wakeRelay: @Sendable () -> Void

    /// The vault, or nil while it is not open: ask each time, a part built without it is retried
    /// (`supervised`) or told by `VaultOpened` on the fact stream.
    public var vault: StationVault? { vaultAccess.vault }

    /// The configuration in force (SIGHUP replaces it).
    public var configuration: StationConfiguration { configurationState.get() }

    /// The next frame of a configured camera (photo evidence from the kiosk, UI-2).
    public func still(camera: String, timeout: Duration = .seconds(5)) async throws -> GrayImage {
        try await cameras.still(camera: camera, timeout: timeout)
    }

    /// The station's status from its live state and open database (no status file, no second
    /// connection): what `edge status` shows, for the kiosk's status page.
    public func status() -> StationStatus {
        let snapshot = state.current
        var file = AgentStatusFile(pid: getpid(), running: true, startedAt: startedAt, updatedAt: now(),
                                   configuration: configuration.path, snapshot: snapshot)
        vaultAccess.describe(into: &file)
        return StationStatus.collect(configuration, environment: environment, now: now(),
                                     live: StationStatus.Live(file: file, database: outbox.database, storage: storage.report))
    }

    /// Wakes the push relay, e.g. after a capability queued a notification.
    public func wakePushRelay() { wakeRelay() }

    /// A part supervised like the agent's own (AGT-1): when it cannot start or ends with an error,
    /// the reason goes to the state and the log and it is tried again with backoff, while every
    /// other part keeps running (a failing kiosk must not stop the cameras).
    public func supervised(_ name: String, _ make: @escaping @Sendable () async throws -> any Service) -> any Service {
        if state.current.parts[name] == nil { state.setPart(name, .starting) }
        return SupervisedService(name: name, state: state, logger: logger, retry: retry, retries: retries, now: now, make: make)
    }
}
