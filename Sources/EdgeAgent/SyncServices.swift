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
    /// Its transport is the station's shared one (`BackendTransport`), closed by the agent.
    let sender: OutboxSender
    let metrics: AgentMetrics
    let pull: WakeSignal
    /// One sender per database: held while this one runs.
    let lock: SenderLock

    func run() async throws {
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

/// Pulls on an interval and when woken (AGT-1, SYN-9): at start, after sends, on SIGHUP. A pull
/// in flight is cancelled at graceful shutdown: it changes nothing until its page commits, and
/// the cursor makes the next start ask again (a backend that never answers must not hold the
/// shutdown for the whole timeout, issue #30 item 4).
struct PullService: Service {
    let outbox: Outbox
    /// The station's shared one (`BackendTransport`), closed by the agent.
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
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                let (outbox, transport, tokens, settings, identity, router) = (outbox, transport, tokens, settings, identity, router)
                let report = try await cancelWhenGracefulShutdown {
                    try await StationParts.pull(outbox: outbox, transport: transport, tokens: tokens, settings: settings,
                                                identity: identity, router: router)
                }
                metrics.recordPull(changes: report.changes, failed: false)
                state.update { $0.lastPullAt = Date().timeIntervalSince1970; $0.lastPullError = nil }
                if report.changes > 0 {
                    logger.info("pulled", metadata: ["event": "sync.pull", "changes": "\(report.changes)", "pages": "\(report.pages)"])
                }
            } catch {
                if Task.isShuttingDownGracefully || Task.isCancelled { break }
                let message = (error as? SyncError)?.message ?? String(describing: error)
                metrics.recordPull(changes: 0, failed: true)
                if state.current.lastPullError != message {
                    logger.warning("pull failed", metadata: ["event": "sync.pull_failed", "code": "\((error as? SyncError)?.code.rawValue ?? "failed")",
                                                             "reason": "\(message)"])
                }
                state.update { $0.lastPullError = message }
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
