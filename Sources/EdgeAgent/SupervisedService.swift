import EdgeCore
import FoundationEssentials
import Logging
import ServiceLifecycle

/// A part of the agent that may not be able to start yet (AGT-1: no backend, no TPM, no vault
/// secret, no kiosk PIN): `make` builds it; when that throws, the reason is reported in the
/// agent's state (with the attempt count and when the next one is due) and in the log, and it is
/// tried again with exponential backoff, while the other parts keep running. Once built, the part
/// runs until graceful shutdown; if it ends with an error it is reported and rebuilt the same way.
///
/// Decision (issue #28 item 4): the waits are the backoff's ceilings (`BackoffPolicy.standard`:
/// 1, 2, 4 ... 60 s), without jitter: these are the station's own parts (a vault, a port, a
/// camera), not requests to a shared backend, and the operator reads "next try in 8 s" in status.
/// The sender's requests keep SYN-7's jittered backoff. A part that ran for at least the cap
/// before failing starts again from the first wait. `PartRetries.retryNow()` (the vault opened)
/// ends every wait at once, so the parts that needed it do not sit out their backoff.
struct SupervisedService: Service {
    let name: String
    let state: AgentState
    let logger: Logger
    let retry: BackoffPolicy
    let retries: PartRetries
    let now: @Sendable () -> Double
    /// false: once built, the part is never built again; an error it ends with ends the group as
    /// an unsupervised part's would (a capability whose set-up registers routes and hooks may
    /// contribute only once).
    var rebuilds = true
    let make: @Sendable () async throws -> any Service

    func run() async throws {
        let wake = retries.register()
        defer { retries.unregister(wake) }
        let clock = ContinuousClock()
        var failures = 0
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            let part: any Service
            do {
                part = try await make()
            } catch {
                failures += 1
                await wait(after: error, failures: failures, wake: wake)
                continue
            }
            // A part that reported itself running (with what it does) keeps its words.
            if state.current.parts[name]?.state != .running { state.setPart(name, .running) }
            if failures > 0 {
                logger.notice("part running", metadata: ["event": "part.running", "part": "\(name)", "attempts": "\(failures + 1)"])
            }
            let started = clock.now
            guard rebuilds else {
                try await part.run()
                break
            }
            do {
                try await part.run()
                if Task.isShuttingDownGracefully || Task.isCancelled { break }
                state.setPart(name, .waiting, reason: "ended; restarting")
            } catch {
                if Task.isShuttingDownGracefully || Task.isCancelled { break }
                failures = clock.now - started >= .seconds(retry.cap) ? 1 : failures + 1
                await wait(after: error, failures: failures, wake: wake)
            }
        }
        state.setPart(name, .stopped)
    }

    /// Reports the failure (logged when the reason changes, not at every attempt) and waits the
    /// backoff, or less when told to retry now or shut down.
    private func wait(after error: any Error, failures: Int, wake: WakeSignal) async {
        let reason = Self.reason(error)
        let delay = retry.ceiling(failures: failures - 1)
        if state.current.parts[name]?.reason != reason {
            logger.warning("part not running", metadata: ["event": "part.waiting", "part": "\(name)", "reason": "\(reason)",
                                                          "attempts": "\(failures)", "retry_in": "\(delay)"])
        }
        state.setRetrying(name, reason: reason, attempts: failures, retryAt: now() + delay)
        await wake.wait(upTo: .milliseconds(Int64(delay * 1000)))
    }

    /// The operator's words for a failure: every error of the project describes itself by its
    /// message (`CodedError`, `KioskError`).
    static func reason(_ error: any Error) -> String { String(describing: error) }
}

/// Every supervised part's wake-up, so one event can end all their backoff waits: the vault
/// opening after a failed start (the sender, puller, push relay and the capabilities that need
/// it retry at once instead of up to a minute later).
public final class PartRetries: Sendable {
    private let signals = Locked<[ObjectIdentifier: WakeSignal]>([:])

    init() {}

    func register() -> WakeSignal {
        let signal = WakeSignal()
        signals.withLock { $0[ObjectIdentifier(signal)] = signal }
        return signal
    }

    func unregister(_ signal: WakeSignal) {
        _ = signals.withLock { $0.removeValue(forKey: ObjectIdentifier(signal)) }
    }

    /// Ends every part's current backoff wait; a part not waiting is woken at its next one, so
    /// it retries once at most (a `WakeSignal` keeps one wake).
    public func retryNow() {
        for signal in signals.withLock({ Array($0.values) }) { signal.wake() }
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
