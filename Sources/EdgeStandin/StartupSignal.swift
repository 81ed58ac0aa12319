import EdgeCore


/// Carries the bound port (or the failure to get one) from the server task to `Standin.start`,
/// whichever of "the server reports its port" and "the server task ended" comes first, and
/// whether or not `wait()` is already waiting.
final class StartupSignal: Sendable {
    private struct State {
        var result: Result<Int, StandinError>?
        var waiter: CheckedContinuation<Int, any Error>?
    }

    private let state = Locked(State())

    func resolve(_ result: Result<Int, StandinError>) {
        let waiter = state.withLock { state -> CheckedContinuation<Int, any Error>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(with: result.mapError { $0 as any Error })
    }

    func wait() async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state -> Result<Int, StandinError>? in
                if let result = state.result { return result }
                state.waiter = continuation
                return nil
            }
            if let ready {
                continuation.resume(with: ready.mapError { $0 as any Error })
            }
        }
    }
}
