import Dispatch

/// Runs async work from a synchronous command and waits for it.
///
/// Decision: `edge` is a `ParsableCommand`, not an `AsyncParsableCommand`: an async root starts
/// every command on the concurrency runtime's worker threads, which `edge scan --image` (run once
/// per file by scripts, SCN-12) paid at start-up for nothing. The async commands
/// (`BridgedAsyncCommand`) bridge here instead; the main thread only waits.
enum AsyncBridge {
    static func wait<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: Result<T, any Error>?
        Task {
            do {
                result = .success(try await body())
            } catch {
                result = .failure(error)
            }
            done.signal()
        }
        done.wait()
        guard let result else { preconditionFailure("the bridged task signalled without a result") }
        return try result.get()
    }
}
