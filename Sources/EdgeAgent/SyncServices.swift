import EdgeFCM
import EdgeHTTP
import EdgeStore
import EdgeSync
import FoundationEssentials
import Logging
import ServiceLifecycle

/// The outbox sender as a service (SYN-7): sends until graceful shutdown, which lets the batch
/// in flight settle (its answers are recorded) before `run` returns.
struct SenderService: Service {
    let sender: OutboxSender
    let transport: CurlTransport
    let metrics: AgentMetrics
    let pull: WakeSignal
    /// One sender per database: held while this one runs.
    let lock: SenderLock

    func run() async throws {
        defer { transport.shutdown() }
        let metrics = self.metrics
        let pull = self.pull
        await cancelWhenGracefulShutdown {
            await sender.run { report in
                metrics.recordDrain(report)
                // Something reached the backend after a quiet spell: its answers may be waiting.
                if report.sent > 0 { pull.wake() }
            }
        }
        withExtendedLifetime(lock) {}
    }
}

/// Pulls on an interval and when woken (AGT-1, SYN-9): at start, after sends, on SIGHUP.
struct PullService: Service {
    let outbox: Outbox
    let transport: CurlTransport
    let tokens: any TokenProvider
    let settings: SyncSettings
    let identity: SyncIdentity
    let router: ChangeRouter
    let interval: Duration
    let wake: WakeSignal
    let metrics: AgentMetrics
    let state: AgentState
    let logger: Logger

    func run() async throws {
        defer { transport.shutdown() }
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                let report = try await StationParts.pull(outbox: outbox, transport: transport, tokens: tokens, settings: settings,
                                                         identity: identity, router: router)
                metrics.recordPull(changes: report.changes, failed: false)
                state.update { $0.lastPullAt = Date().timeIntervalSince1970; $0.lastPullError = nil }
                if report.changes > 0 {
                    logger.info("pulled", metadata: ["event": "sync.pull", "changes": "\(report.changes)", "pages": "\(report.pages)"])
                }
            } catch {
                metrics.recordPull(changes: 0, failed: true)
                if state.current.lastPullError != error.message {
                    logger.warning("pull failed", metadata: ["event": "sync.pull_failed", "code": "\(error.code.rawValue)", "reason": "\(error.message)"])
                }
                state.update { $0.lastPullError = error.message }
            }
            await wake.wait(upTo: interval)
        }
    }
}

/// The push relay as a service (PSH-1..11): passes until graceful shutdown.
struct PushRelayService: Service {
    let parts: PushRelayParts
    let metrics: AgentMetrics
    let logger: Logger

    func run() async throws {
        defer { parts.transport.shutdown() }
        let metrics = self.metrics
        let logger = self.logger
        let relay = parts.relay
        await cancelWhenGracefulShutdown {
            await relay.run(onReport: { report in
                metrics.recordPush(report)
                if let error = report.authenticationError {
                    logger.warning("push not authenticated", metadata: ["event": "push.auth_failed", "reason": "\(error)"])
                }
            }, onError: { error in
                logger.error("push relay store error", metadata: ["event": "push.store_failed", "reason": "\(error.message)"])
            })
        }
    }
}

/// A wake-up that is remembered until someone waits (coalesced: many wakes, one pass).
public final class WakeSignal: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    public init() {
        (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    public func wake() {
        continuation.yield()
    }

    /// Returns when woken, after `duration`, at graceful shutdown, or when cancelled.
    public func wait(upTo duration: Duration) async {
        let stream = self.stream
        _ = try? await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { try? await Task.sleep(for: duration) }
                group.addTask {
                    var iterator = stream.makeAsyncIterator()
                    _ = await iterator.next()
                }
                await group.next()
                group.cancelAll()
            }
        }
    }
}
