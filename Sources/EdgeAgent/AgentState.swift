import EdgeCore
import FoundationEssentials

/// What the running agent knows about its parts, for `edge status` and the log (AGT-1, AGT-7):
/// each part is running, waiting (and why: no camera, no backend, no TPM) or stopped.
public final class AgentState: Sendable {
    public enum PartState: String, Sendable, Codable {
        case starting, running, waiting, failed, stopped
    }

    public struct Part: Sendable, Codable, Equatable {
        public var state: PartState
        /// Why it is waiting or failed; never a secret.
        public var reason: String?
        /// Unix seconds of the last change.
        public var since: Double
        /// A part that could not start: how many attempts failed in a row, and when (Unix
        /// seconds) the next one is due (issue #28 item 4: the operator sees it is retried).
        public var attempts: Int?
        public var retryAt: Double?
    }

    public struct Camera: Sendable, Codable, Equatable {
        public var name: String
        public var device: String
        public var up: Bool
        public var detail: String?
        public var frames: Int
        public var events: Int
        /// Unix seconds of the last event.
        public var lastEventAt: Double?
        /// What the last event showed (a linking code masked).
        public var lastEvent: String?
    }

    public struct Snapshot: Sendable, Codable, Equatable {
        public var parts: [String: Part] = [:]
        public var cameras: [String: Camera] = [:]
        public var lastPullAt: Double?
        public var lastPullError: String?
        /// Configuration changes that take effect only at the next start (SIGHUP).
        public var restartPending: [String] = []
        public var configurationLoadedAt: Double?
        public var lastReloadError: String?
        /// Where /metrics is served, once listening.
        public var metricsAddress: String?
        /// Where the kiosk (local web UI) listens, once it does: `http://127.0.0.1:8080`.
        public var uiAddress: String?
        /// Places the capabilities write to besides the station's own (photos), by what they hold,
        /// so `edge status` measures them too (issue #30 item 1). Optional, as every member added
        /// later: a status file an older agent wrote has none.
        public var storagePlaces: [String: String]?
        /// Writes that failed for want of a working disk, by what the place holds; removed when a
        /// write there succeeds or the disk has room again (`StorageMonitor`).
        public var storageFailures: [String: StorageFailure]?
    }

    private let snapshot = Locked(Snapshot())
    /// Called after every change (the status file writer), outside the lock.
    private let onChange: Locked<(@Sendable () -> Void)?> = Locked(nil)

    public init() {}

    public var current: Snapshot { snapshot.withLock { $0 } }

    public func observe(_ body: @escaping @Sendable () -> Void) {
        onChange.withLock { $0 = body }
    }

    public func update(_ body: (inout Snapshot) -> Void) {
        snapshot.withLock { body(&$0) }
        onChange.withLock { $0 }?()
    }

    public func setPart(_ name: String, _ state: PartState, reason: String? = nil) {
        update { snapshot in
            if let part = snapshot.parts[name], part.state == state, part.reason == reason, part.attempts == nil { return }
            snapshot.parts[name] = Part(state: state, reason: reason, since: Date().timeIntervalSince1970)
        }
    }

    /// A part that could not start (or ended with an error) and is tried again at `retryAt`.
    /// `since` stays the time it first stopped running, so status says how long it has been down.
    public func setRetrying(_ name: String, reason: String, attempts: Int, retryAt: Double) {
        update { snapshot in
            let since = snapshot.parts[name].flatMap { $0.state == .waiting ? $0.since : nil } ?? Date().timeIntervalSince1970
            snapshot.parts[name] = Part(state: .waiting, reason: reason, since: since, attempts: attempts, retryAt: retryAt)
        }
    }
}
