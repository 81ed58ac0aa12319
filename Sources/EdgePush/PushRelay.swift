import EdgeCore
import FoundationEssentials

/// The relay's long-running loop: release what quiet hours held, send what is due, purge what
/// is 90 days old, then wait until something is due, `wake()` is called, or `pollSeconds` pass
/// (another process, `edge push send`, may have queued something).
public actor PushRelay {
    public let store: PushStore
    public let sender: PushSender
    public let pollSeconds: Double
    private let clock: @Sendable () -> Double
    private var lastPurge: Double = 0
    /// A wake() that came while no one slept: the next sleep returns at once.
    private var pendingWake = false
    private var sleeper: CheckedContinuation<Void, Never>?
    /// Tells a stale timer from the current sleep's.
    private var generation = 0

    public init(store: PushStore, sender: PushSender, pollSeconds: Double = 1,
                clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.store = store
        self.sender = sender
        self.pollSeconds = pollSeconds
        self.clock = clock
    }

    /// Something was queued in this process: send it now rather than at the next poll.
    public nonisolated func wake() {
        Task(executorPreference: StationExecutor.shared) { await self.signal() }
    }

    /// One round: release, send until nothing due is left (`PushSender.sendAllDue`: reading
    /// `batch` at a time while earlier sends are still open), purge at most hourly. `onBatch`
    /// sees each chunk's report as soon as its outcomes are recorded. Returns their sum.
    public func pass(batch: Int = 1000, onBatch: (@Sendable (PushSendReport) -> Void)? = nil) async throws(PushError) -> PushSendReport {
        let now = clock()
        _ = try store.releaseHeld(now: Int64(now))
        var onSettled: (@Sendable (PushSendReport) -> Void)?
        if let onBatch {
            onSettled = { report in if report != PushSendReport() { onBatch(report) } }
        }
        let total = try await sender.sendAllDue(batch: batch, onSettled: onSettled)
        if now - lastPurge >= 3600 {
            try store.purge(now: Int64(now))
            lastPurge = now
        }
        return total
    }

    /// Runs passes until cancelled; `onReport` sees each batch that did something. A store error
    /// is reported through `onError` and retried at the next poll: the database may be busy or
    /// full for a while, and the relay must outlive it.
    public func run(onReport: @escaping @Sendable (PushSendReport) -> Void = { _ in },
                    onError: @escaping @Sendable (PushError) -> Void = { _ in }) async {
        while !Task.isCancelled {
            do {
                _ = try await pass(onBatch: onReport)
            } catch {
                onError(error)
            }
            await sleep(seconds: await nextWait())
        }
    }

    private func nextWait() async -> Double {
        var wait = pollSeconds
        let now = clock()
        if let retry = sender.nextRetry { wait = min(wait, max(0, retry - now)) }
        return max(0.001, wait)
    }

    /// Sleeps `seconds`, less when woken or cancelled.
    private func sleep(seconds: Double) async {
        if pendingWake {
            pendingWake = false
            return
        }
        generation += 1
        let current = generation
        let timer = Task(executorPreference: StationExecutor.shared) { [self] in
            try? await Task.sleep(for: .seconds(seconds))
            await self.fire(current)
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled { continuation.resume() } else { sleeper = continuation }
            }
        } onCancel: {
            Task(executorPreference: StationExecutor.shared) { await self.signal() }
        }
        timer.cancel()
    }

    private func fire(_ which: Int) {
        guard which == generation, let sleeper else { return }
        self.sleeper = nil
        sleeper.resume()
    }

    private func signal() {
        if let sleeper {
            self.sleeper = nil
            sleeper.resume()
        } else {
            pendingWake = true
        }
    }
}
