import EdgeAgent
import EdgeContract
import EdgeCore
import Logging
import ServiceLifecycle

/// The receiving dock in the agent (AGT-1, AGT-5): routes delivered GRNs to the ledger and pulled
/// order changes to the offline cache, and runs `ReceivingService` (camera reads become the
/// kiosk's next lookup; photos are uploaded, conflicts reconciled, photos purged).
///
/// `edge run` passes one in on dock stations (and stations that are both); the kiosk reads `feed`.
public final class ReceivingCapability: AgentCapability {
    public let name = "receiving"
    public let feed = KioskFeed()
    /// Set by `register`: the dock the agent runs, for the local UI.
    public let dock = Locked<ReceivingDock?>(nil)
    /// The `receiving` section, checked when the capability is made so that `edge run` refuses a
    /// bad one before anything starts; nil when the file has none.
    public let settings: ReceivingSettings?

    public init(configuration: StationConfiguration) throws(StationConfigurationError) {
        settings = try configuration.section("receiving", as: ReceivingSettings.self)
    }

    public func register(in agent: Agent) throws -> [any Service] {
        let parts = try ReceivingParts.build(configuration: agent.configuration, outbox: agent.outbox, paths: agent.paths, vault: agent.vault)
        ReceivingRoutes.register(on: agent.router, dock: parts.dock)
        dock.withLock { $0 = parts.dock }
        agent.state.setPart(name, .running, reason: parts.dock.client == nil ? "offline: \(parts.dock.offlineReason)" : nil)
        // Camera reads are looked up from the last one recorded before the agent runs: the
        // cameras start with the group, and a read recorded before this service's first poll
        // must not be missed (the repeat filter would not report the label again).
        let after = (try? DockScanWatcher(database: agent.outbox.database).newestID()) ?? 0
        return [ReceivingService(parts: parts, feed: feed, firstScanAfter: after, logger: agent.logger)]
    }
}
