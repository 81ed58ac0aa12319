import EdgeCore

/// The kiosk's calls to the backend that a screen waits for (a dock lookup, a portal link or
/// status check), cancelled when the station stops (issue #30 item 4).
///
/// Why: the kiosk is an input and stops first, and its server's graceful shutdown waits for the
/// requests in flight; a lookup held by a backend that never answers would hold the whole
/// shutdown for its timeout (minutes). These calls change nothing the station keeps (a lookup)
/// or are retried by the person at the screen (a link), so at shutdown they end at once, the
/// screen is told the backend is not available, and no new one starts.
final class KioskBackendCalls: Sendable {
    private struct State {
        var stopped = false
        var next = 0
        var running: [Int: @Sendable () -> Void] = [:]
    }

    private let state = Locked(State())

    /// Runs `body` until it ends, the calling task is cancelled, or `cancelAll` (then `body` sees
    /// its task cancelled: the transport stops its request).
    func run<T: Sendable>(_ body: @escaping @Sendable () async -> T) async -> T {
        let task = Task(executorPreference: StationExecutor.shared) { await body() }
        let id = state.withLock { state -> Int? in
            guard !state.stopped else { return nil }
            state.next += 1
            state.running[state.next] = { task.cancel() }
            return state.next
        }
        if id == nil { task.cancel() }
        defer { if let id { state.withLock { _ = $0.running.removeValue(forKey: id) } } }
        return await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }
    }

    /// Cancels every call in flight and every later one.
    func cancelAll() {
        let running = state.withLock { state -> [@Sendable () -> Void] in
            state.stopped = true
            defer { state.running = [:] }
            return Array(state.running.values)
        }
        for cancel in running { cancel() }
    }
}
