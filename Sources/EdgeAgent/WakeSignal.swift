import EdgeCore
import ServiceLifecycle

/// A wake-up that is remembered until someone waits (coalesced: many wakes, one pass): the
/// puller's "pull now", a part's "retry now".
///
/// Why not an AsyncStream: the wait races the wake against a timer and cancels the loser, and
/// cancelling the task iterating an AsyncStream finishes the stream, so after the first timeout
/// every later wait returned at once (the soak run, issue #30 item 5: the puller asked 260 times
/// a second, a part that could not start retried without backoff). Here a cancelled wait only
/// leaves; the signal stays usable.
public final class WakeSignal: Sendable {
    private struct State {
        var pending = false
        var next: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Locked(State())

    public init() {}

    /// Wakes every waiter now, or the next wait when nobody waits.
    public func wake() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.waiters.isEmpty else {
                state.pending = true
                return []
            }
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns when woken, after `duration`, at graceful shutdown, or when cancelled.
    public func wait(upTo duration: Duration) async {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { try? await Task.sleep(for: duration) }
                group.addTask { await self.woken() }
                await group.next()
                group.cancelAll()
            }
        }
    }

    /// Returns at the next wake (at once for one that came while nobody waited) or when the
    /// task is cancelled.
    private func woken() async {
        let id = state.withLock { state -> UInt64 in
            state.next += 1
            return state.next
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.pending {
                        state.pending = false
                        return true
                    }
                    // Cancelled before it was registered: the handler found nothing to resume.
                    if Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
