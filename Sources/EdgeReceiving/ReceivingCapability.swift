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
    /// Set by `contribute`: the dock's current lookup, and the parts the station runs (built
    /// again, with its backend client, when the vault opens after the start).
    private let made = Locked<(feed: KioskFeed, parts: ReceivingParts)?>(nil)
    /// The `receiving` section, checked when the capability is made so that `edge run` refuses a
    /// bad one before anything starts; nil when the file has none.
    public let settings: ReceivingSettings?

    public init(configuration: StationConfiguration) throws(StationConfigurationError) {
        settings = try configuration.section("receiving", as: ReceivingSettings.self)
    }

    public var feed: KioskFeed? { made.get()?.feed }
    public var dock: ReceivingDock? { made.get()?.parts.dock }
    var parts: ReceivingParts? { made.get()?.parts }

    public func contribute(to context: StationContext) throws -> StationServices {
        let parts = try ReceivingParts.build(configuration: context.configuration, outbox: context.outbox, paths: context.paths, vault: context.vault,
                                             backend: context.backend, clock: context.now)
        // The ledger and cache are tables of the station's database: a dock built again (the
        // vault opened late) writes the same ones, so the routes keep this one.
        ReceivingRoutes.register(on: context.router, dock: parts.dock)
        let feed = KioskFeed(facts: context.facts)
        made.set((feed, parts))
        // Photos may be on their own disk (receiving.photo_dir): status and /metrics measure it.
        context.storage.watch("photos", directory: parts.dock.photos.directory)
        report(parts, state: context.state)
        // Subscribed now, before the cameras start with the group: no read is missed.
        return StationServices(senders: [ReceivingService(capability: self, feed: feed, facts: context.facts.subscribe(), logger: context.logger,
                                                          reconnect: { [weak self] in self?.reconnect(context) })])
    }

    /// The vault opened after the start (issue #28 item 4): a dock that was offline for want of
    /// it is built again with its backend client. Its cache, ledger and photos are the same
    /// tables, so nothing in progress changes; offline parts hold no transport, so none is left
    /// open.
    private func reconnect(_ context: StationContext) {
        guard let current = made.get(), current.parts.dock.client == nil,
              let rebuilt = try? ReceivingParts.build(configuration: context.configuration, outbox: context.outbox, paths: context.paths,
                                                      vault: context.vault, backend: context.backend, clock: context.now),
              rebuilt.dock.client != nil else { return }
        made.set((current.feed, rebuilt))
        report(rebuilt, state: context.state)
        context.logger.notice("dock online", metadata: ["event": "receiving.online"])
    }

    private func report(_ parts: ReceivingParts, state: AgentState) {
        state.setPart(name, .running, reason: parts.dock.client == nil ? "offline: \(parts.dock.offlineReason)" : nil)
    }
}
