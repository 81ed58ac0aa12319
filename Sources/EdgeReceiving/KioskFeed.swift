import FoundationEssentials
import Synchronization

/// The latest camera-driven lookup and a stream of the ones after it, for the kiosk screen (the
/// local web UI reads this; UI-2). Each subscriber gets the current one first, then every new one;
/// a slow subscriber keeps only the newest (the screen shows one lookup at a time).
public final class KioskFeed: Sendable {
    private struct State {
        var latest: KioskLookup?
        var subscribers: [Int: AsyncStream<KioskLookup>.Continuation] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())

    public init() {}

    public var latest: KioskLookup? { state.withLock { $0.latest } }

    public func updates() -> AsyncStream<KioskLookup> {
        let (stream, continuation) = AsyncStream.makeStream(of: KioskLookup.self, bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.subscribers[id] = continuation
            if let latest = state.latest { continuation.yield(latest) }
            return id
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Makes `lookup` the current one (a camera read, or a label typed at the kiosk).
    public func publish(_ lookup: KioskLookup) {
        let subscribers = state.withLock { state in
            state.latest = lookup
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.yield(lookup) }
    }

    /// Ends every stream (the agent is stopping).
    func finish() {
        let subscribers = state.withLock { state in
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }
}
