import EdgeAgent
import EdgeCore

/// The dock's current lookup, for the kiosk screen (UI-2): the latest one kept here, every new one
/// published on the station's fact stream. Each subscriber gets the current one first, then every
/// new one.
public final class KioskFeed: Sendable {
    private let current = Locked<KioskLookup?>(nil)
    /// The station's stream, where the dock's receipts and notices go too (`DockScanner`).
    let facts: StationFacts

    public init(facts: StationFacts) {
        self.facts = facts
    }

    public var latest: KioskLookup? { current.get() }

    public func updates() -> AsyncStream<KioskLookup> {
        // Subscribed before the latest is read: a lookup published in between comes twice at
        // worst (the screen shows the same card again), never not at all.
        let subscription = facts.subscribe()
        let latest = self.latest
        return AsyncStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
            let forward = Task(executorPreference: StationExecutor.shared) {
                if let latest { continuation.yield(latest) }
                for await fact in subscription {
                    if let lookup = fact as? KioskLookup { continuation.yield(lookup) }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in forward.cancel() }
        }
    }

    /// Makes `lookup` the current one (a camera read, or a label typed at the kiosk).
    public func publish(_ lookup: KioskLookup) {
        current.set(lookup)
        confirmed.set(nil)
        facts.publish(lookup)
    }

    /// The current order's receipt was confirmed: the order stays on screen with its result, but
    /// it is no longer open for counting (the next item label opens its card; the order's label
    /// opens the order again for the next delivery).
    public func orderConfirmed(_ poNumber: String) {
        confirmed.set(poNumber)
    }

    /// The order confirmed while it is the current lookup, if any.
    public var confirmedOrder: String? { confirmed.get() }
    private let confirmed = Locked<String?>(nil)
}
