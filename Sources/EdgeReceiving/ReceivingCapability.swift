import EdgeAgent
import EdgeContract
import Logging
import ServiceLifecycle

/// The receiving dock in the agent (AGT-1, AGT-5): routes delivered GRNs to the ledger and pulled
/// order changes to the offline cache, and runs `ReceivingService` (camera reads become the
/// kiosk's next lookup; photos are uploaded, conflicts reconciled, photos purged).
///
/// `edge run` passes one in; the kiosk reads `feed`.
public final class ReceivingCapability: AgentCapability {
    public let name = "receiving"
    public let feed = KioskFeed()

    public init() {}

    public func register(in agent: Agent) throws -> [any Service] {
        let configuration = agent.configuration
        let parts = try ReceivingParts.build(configuration: configuration, outbox: agent.outbox, paths: agent.paths, vault: agent.vault)
        ReceivingRoutes.register(on: agent.router, dock: parts.dock)
        // Decision: a clinic-only station has no dock cameras; its routes stay (a GRN queued
        // earlier is still settled) but camera reads are not looked up.
        let watchCameras = configuration.station.role != .clinic
        agent.state.setPart(name, .running, reason: parts.dock.client == nil ? "offline: \(parts.dock.offlineReason)" : nil)
        return [ReceivingService(parts: parts, feed: feed, watchCameras: watchCameras, logger: agent.logger)]
    }
}
