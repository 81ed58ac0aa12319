import EdgeCore
import Logging
import ServiceLifecycle

/// A part of the agent that may not be able to start yet (AGT-1: no backend, no TPM, no vault
/// secret): `make` builds it; when that throws, the reason is reported in the agent's state and
/// the log, and it is tried again after `retryInterval`, while the other parts keep running.
/// Once built, the part runs until graceful shutdown; if it ends with an error it is reported
/// and rebuilt the same way.
struct SupervisedService: Service {
    let name: String
    let state: AgentState
    let logger: Logger
    let retryInterval: Duration
    let make: @Sendable () async throws -> any Service

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            let part: any Service
            do {
                part = try await make()
            } catch {
                report(error, building: true)
                await Task.sleepUnlessShuttingDown(for: retryInterval)
                continue
            }
            state.setPart(name, .running)
            do {
                try await part.run()
                if Task.isShuttingDownGracefully || Task.isCancelled { break }
                state.setPart(name, .waiting, reason: "ended; restarting")
            } catch {
                if Task.isShuttingDownGracefully || Task.isCancelled { break }
                report(error, building: false)
                await Task.sleepUnlessShuttingDown(for: retryInterval)
            }
        }
        state.setPart(name, .stopped)
    }

    private func report(_ error: any Error, building: Bool) {
        let reason = (error as? AgentPartError)?.message ?? String(describing: error)
        if state.current.parts[name]?.reason != reason {
            logger.warning("part not running", metadata: ["event": "part.waiting", "part": "\(name)", "reason": "\(reason)"])
        }
        state.setPart(name, .waiting, reason: reason)
    }
}

extension Task where Success == Never, Failure == Never {
    /// `Task.sleep` that also ends at graceful shutdown.
    static func sleepUnlessShuttingDown(for duration: Duration) async {
        try? await cancelWhenGracefulShutdown { try await Task<Never, Never>.sleep(for: duration) }
    }
}

/// Why a part could not be built, in words for the operator (no secret, no linking code).
public typealias AgentPartError = CodedError<AgentPartErrorCode>

public enum AgentPartErrorCode: String, Sendable, Hashable {
    case notConfigured = "not-configured"
    case vaultUnavailable = "vault-unavailable"
    case secretMissing = "secret-missing"
    case transportFailed = "transport-failed"
    case storeFailed = "store-failed"
}
