import EdgeAgent
import EdgeContract
import EdgeCore
import Logging
import ServiceLifecycle

/// The receiving dock in the station (AGT-1, AGT-5): routes delivered GRNs to the ledger and
/// pulled order changes to the offline cache, and runs `ReceivingService` as a sender (camera
/// reads become the kiosk's next lookup; photos are uploaded, conflicts reconciled, photos purged).
///
/// `buildStation` turns it on for dock stations (and stations that are both); the kiosk reads
/// `feed` and `dock`.
public final class ReceivingCapability: StationCapability {
    public let name = "receiving"
    /// Set by `contribute`: the dock's current lookup, and the dock the station runs.
    private let made = Locked<(feed: KioskFeed, dock: ReceivingDock)?>(nil)
    /// The `receiving` section, checked when the capability is made so that `edge run` refuses a
    /// bad one before anything starts; nil when the file has none.
    public let settings: ReceivingSettings?

    public init(configuration: StationConfiguration) throws(StationConfigurationError) {
        settings = try configuration.section("receiving", as: ReceivingSettings.self)
    }

    public var feed: KioskFeed? { made.get()?.feed }
    public var dock: ReceivingDock? { made.get()?.dock }

    public func contribute(to context: StationContext) throws -> StationServices {
        let parts = try ReceivingParts.build(configuration: context.configuration, outbox: context.outbox, paths: context.paths, vault: context.vault,
                                             clock: context.now)
        ReceivingRoutes.register(on: context.router, dock: parts.dock)
        let feed = KioskFeed(facts: context.facts)
        made.set((feed, parts.dock))
        context.state.setPart(name, .running, reason: parts.dock.client == nil ? "offline: \(parts.dock.offlineReason)" : nil)
        // Subscribed now, before the cameras start with the group: no read is missed.
        return StationServices(senders: [ReceivingService(parts: parts, feed: feed, facts: context.facts.subscribe(), logger: context.logger)])
    }
}
