import EdgeAgent
import EdgeHTTP
import EdgeStore
import EdgeSync
import FoundationEssentials

/// The dock as a station builds it from its configuration, for the agent's capability and the
/// CLI alike: the store's outbox, the `receiving` section, and a client to the sync backend with
/// the station's token when there is one. Without a backend, token or vault the dock still works
/// from its cache and queues confirmations; `dock.offlineReason` says why it is offline.
public struct ReceivingParts: Sendable {
    public let dock: ReceivingDock
    /// The client's transport: the station's shared one, or one of the parts' own (`close`).
    public let transport: CurlTransport?
    public let identity: SyncIdentity?
    public let tokens: VaultTokenProvider?
    /// True when `transport` was made for these parts, not lent by the station.
    private let ownsTransport: Bool

    /// `clock`: the station's wall clock (`StationContext.now` in the agent). `backend`: the
    /// station's shared transport (`StationContext.backend`), which the agent closes; nil, as in
    /// a command, makes one of the parts' own, closed by `close()`.
    public static func build(configuration: StationConfiguration, outbox: Outbox, paths: StationPaths,
                             vault: StationVault?, backend: BackendTransport? = nil,
                             clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) throws(ReceivingError) -> ReceivingParts {
        let settings: ReceivingSettings?
        do {
            settings = try configuration.section("receiving", as: ReceivingSettings.self)
        } catch {
            throw ReceivingError(.notConfigured, error.message)
        }
        let photoDirectory = paths.stateDirectory + "/photos"
        func offline(_ reason: String) -> ReceivingParts {
            ReceivingParts(dock: ReceivingDock(outbox: outbox, photoDirectory: photoDirectory, settings: settings, client: nil, offlineReason: reason,
                                         clock: clock),
                           transport: nil, identity: nil, tokens: nil, ownsTransport: false)
        }
        guard let sync = configuration.sync else { return offline("no backend is configured (sync.base_url in edge.json)") }
        guard let vault else { return offline("the vault is not open, so there is no token (it is retried; see the vault part)") }
        let deviceID: String
        do {
            deviceID = try vault.deviceID()
        } catch {
            return offline("the vault has no device id: \(error.message)")
        }
        let transport: CurlTransport
        do {
            if let backend {
                transport = try backend.transport()
            } else {
                transport = try StationParts.syncTransport(sync)
            }
        } catch {
            return offline("the HTTP transport could not start: \(error.message)")
        }
        let identity = StationParts.identity(deviceID: deviceID, push: configuration.push)
        let tokens = VaultTokenProvider(vault: vault, stationSecret: sync.tokenSecret)
        let client = ReceivingClient(baseURL: sync.baseURL, identity: identity, transport: transport, tokens: tokens)
        return ReceivingParts(dock: ReceivingDock(outbox: outbox, photoDirectory: photoDirectory, settings: settings, client: client, clock: clock),
                              transport: transport, identity: identity, tokens: tokens, ownsTransport: backend == nil)
    }

    /// Shuts down the transport when it is the parts' own; the station's shared one is the agent's.
    public func close() {
        if ownsTransport { transport?.shutdown() }
    }
}
