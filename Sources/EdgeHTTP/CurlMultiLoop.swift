import EdgeCore
import CCurl
import Glibc

/// One curl multi handle driven by one dedicated pthread.
///
/// Callers hand transfers over under `state`'s lock and wake the thread with
/// `curl_multi_wakeup` (the one multi call curl allows from any thread; it is made under the same
/// lock, so it can never reach a handle `shutdown` has already freed). The thread adds and removes
/// easy handles, runs `curl_multi_perform`, collects `CURLMSG_DONE` messages, resumes the
/// waiting continuations and sleeps in `curl_multi_poll`. All other curl calls on the multi
/// handle and on added easy handles happen on that thread only.
///
/// The multi handle keeps the connection cache, so requests to the same host reuse connections
/// and, over HTTP/2, share one (CURLMOPT_PIPELINING = CURLPIPE_MULTIPLEX).
final class CurlMultiLoop: @unchecked Sendable {
    // @unchecked: `multi` is used as described above; everything else shared lives in `state`.
    typealias Continuation = CheckedContinuation<Result<HTTPResponse, TransportError>, Never>

    private struct Entry {
        let transfer: CurlTransfer
        var continuation: Continuation?
        var cancelRequested = false
    }

    private struct State {
        /// Every transfer between `register` and its completion, keyed by id.
        var entries: [UInt64: Entry] = [:]
        /// Ids started but not yet added to the multi handle.
        var pending: [UInt64] = []
        var hasCancellations = false
        var shuttingDown = false
        var nextID: UInt64 = 1
        /// Set by the first `shutdown`, which joins the thread and frees the multi handle.
        var shutdownClaimed = false
        /// The multi handle is freed: no more wakeups.
        var closed = false
    }

    private let multi: UnsafeMutableRawPointer
    private let state = Locked(State())
    private let thread = Locked<NamedThread?>(nil)

    init(maxConnectionsPerHost: Int, maxConcurrentStreams: Int) throws(TransportError) {
        multi = try Curl.multiInit()
        do {
            try Curl.multiSetopt(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
            try Curl.multiSetopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, maxConnectionsPerHost)
            try Curl.multiSetopt(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, maxConcurrentStreams)
            // Idle connections kept for reuse. curl's default is 4 per easy handle added, and a
            // transfer's handle is removed when it ends, so between bursts the cache shrank to
            // nothing and every burst paid new TLS handshakes (and raced them).
            try Curl.multiSetopt(multi, CURLMOPT_MAXCONNECTS, max(8, maxConnectionsPerHost * 2))
            try start()
        } catch {
            Curl.multiCleanup(multi)
            throw error
        }
    }

    private func start() throws(TransportError) {
        do {
            // The thread holds the loop until `run` returns (after `shutdown`).
            let thread = try NamedThread.start(name: "edge-curl") { [self] in run() }
            self.thread.withLock { $0 = thread }
        } catch {
            throw TransportError(.internalFailure, "The transport could not start its network thread.", context: error.context)
        }
    }

    func nextID() -> UInt64 {
        state.withLock { state in
            defer { state.nextID &+= 1 }
            return state.nextID
        }
    }

    /// Records a transfer so a cancellation can find it. False once the loop is shutting down.
    func register(_ transfer: CurlTransfer) -> Bool {
        state.withLock { state in
            guard !state.shuttingDown else { return false }
            state.entries[transfer.id] = Entry(transfer: transfer)
            return true
        }
    }

    /// Queues a registered transfer for the loop thread; `continuation` is resumed exactly once,
    /// from the loop thread or, when the transfer was cancelled first or the loop is stopping, here.
    func start(_ id: UInt64, continuation: Continuation) {
        let refusal: TransportError? = state.withLock { state in
            guard var entry = state.entries[id] else { return Self.shutdownError }
            if entry.cancelRequested || state.shuttingDown {
                state.entries[id] = nil
                return entry.cancelRequested ? Self.cancelledError(entry.transfer) : Self.shutdownError
            }
            entry.continuation = continuation
            state.entries[id] = entry
            state.pending.append(id)
            wake(state)
            return nil
        }
        if let refusal { continuation.resume(returning: .failure(refusal)) }
    }

    /// From the task's cancellation handler: the loop removes the transfer and fails it with `.cancelled`.
    func cancel(_ id: UInt64) {
        state.withLock { state in
            guard state.entries[id] != nil else { return }
            state.entries[id]?.cancelRequested = true
            state.hasCancellations = true
            wake(state)
        }
    }

    /// Stops the loop: transfers in flight and queued fail with `.cancelled` (reason "shutdown"),
    /// later ones are refused. Waits for the thread to finish, then frees the multi handle.
    /// Idempotent; only the first call waits.
    func shutdown() {
        let first = state.withLock { state in
            state.shuttingDown = true
            wake(state)
            defer { state.shutdownClaimed = true }
            return !state.shutdownClaimed
        }
        guard first, let handle = thread.withLock({ $0 }) else { return }
        handle.join()
        state.withLock { $0.closed = true }
        Curl.multiCleanup(multi)
    }

    /// Must be called with the lock held (see the type's comment).
    private func wake(_ state: borrowing State) {
        guard !state.closed else { return }
        Curl.multiWakeup(multi)
    }

    // MARK: the loop thread

    private func run() {
        var running: [UnsafeMutableRawPointer: CurlTransfer] = [:]
        while true {
            let (added, failed, stopping) = takeWork()
            for (transfer, continuation) in failed {
                if running.removeValue(forKey: transfer.easy) != nil { Curl.multiRemove(multi, transfer.easy) }
                continuation.resume(returning: .failure(stopping ? Self.shutdownError : Self.cancelledError(transfer)))
            }
            if stopping {
                // Every started transfer was in `failed`; this only guards the invariant.
                for easy in running.keys { Curl.multiRemove(multi, easy) }
                return
            }
            for transfer in added {
                do throws(TransportError) {
                    try Curl.multiAdd(multi, transfer.easy)
                    running[transfer.easy] = transfer
                } catch {
                    finish(transfer, with: .failure(error))
                }
            }
            do throws(TransportError) {
                try Curl.multiPerform(multi)
                collectDone(&running)
                try Curl.multiPoll(multi, milliseconds: 1000)
            } catch {
                // Not expected outside memory exhaustion: fail what is in flight rather than spin.
                failAll(&running, error)
                usleep(10_000)
            }
        }
    }

    /// Under the lock: the transfers to add, those to fail (cancelled, or every started one when
    /// stopping) with their continuations, and whether the loop is stopping. Entries to fail are
    /// removed from `state`; the caller removes their easy handles before the transfers are released.
    private func takeWork() -> (added: [CurlTransfer], failed: [(CurlTransfer, Continuation)], stopping: Bool) {
        state.withLock { state in
            var failed: [(CurlTransfer, Continuation)] = []
            if state.hasCancellations || state.shuttingDown {
                for (id, entry) in state.entries {
                    guard let continuation = entry.continuation, entry.cancelRequested || state.shuttingDown else { continue }
                    failed.append((entry.transfer, continuation))
                    state.entries[id] = nil
                }
                state.hasCancellations = false
            }
            let added = state.pending.compactMap { state.entries[$0]?.transfer }
            state.pending.removeAll()
            return (added, failed, state.shuttingDown)
        }
    }

    private func collectDone(_ running: inout [UnsafeMutableRawPointer: CurlTransfer]) {
        while let (easy, code) = Curl.multiNextDone(multi) {
            guard let transfer = running.removeValue(forKey: easy) else { continue }
            // The outcome reads CURLINFO from the handle, which stays valid until the transfer is released.
            let outcome = transfer.outcome(code)
            Curl.multiRemove(multi, easy)
            finish(transfer, with: outcome)
        }
    }

    private func failAll(_ running: inout [UnsafeMutableRawPointer: CurlTransfer], _ error: TransportError) {
        for (easy, transfer) in running {
            Curl.multiRemove(multi, easy)
            finish(transfer, with: .failure(error))
        }
        running.removeAll()
    }

    /// Removes the entry and resumes its continuation (outside the lock).
    private func finish(_ transfer: CurlTransfer, with result: Result<HTTPResponse, TransportError>) {
        let continuation = state.withLock { $0.entries.removeValue(forKey: transfer.id)?.continuation }
        continuation?.resume(returning: result)
    }

    private static let shutdownError = TransportError(.cancelled, "The request was stopped because the transport shut down.",
                                                      context: ["reason": "shutdown"])

    private static func cancelledError(_ transfer: CurlTransfer) -> TransportError {
        var context = transfer.context
        context["reason"] = "task cancelled"
        return TransportError(.cancelled, "The request was cancelled.", context: context)
    }
}
