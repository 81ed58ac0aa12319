import EdgeCore
import EdgeHTTP
import EdgeSync

/// The station's one libcurl transport to the sync backend, shared by every part that talks to it
/// (the outbox sender, the puller, the dock's lookups and uploads): one connection cache and one
/// network thread.
///
/// Decision (issue #30 item 5): with a transport per part, each kept its own idle connections, so
/// the station's connections to the backend were the sum of each part's busiest moment and stepped
/// up by one whenever two parts happened to overlap. Shared, they are the busiest moment of all
/// together: at most the 8 `StationParts.syncTransport` allows, and one over HTTP/2. The parts'
/// sync settings are the same file's and are read once per run (`ReloadPlan`), so one set of
/// options serves them all.
///
/// Built at the first use, so that a CA file that cannot be read yet fails the part that asked
/// (which is retried) and not the station. Shut down by the agent once its group has stopped,
/// when no part sends any more; a part that is rebuilt after a failure gets the same transport.
public final class BackendTransport: Sendable {
    private struct State {
        var transport: CurlTransport?
        var closed = false
    }

    private let settings: SyncSettings
    private let state = Locked(State())

    public init(settings: SyncSettings) {
        self.settings = settings
    }

    /// The shared transport, made now if this is the first use.
    public func transport() throws(TransportError) -> CurlTransport {
        let settings = self.settings
        return try state.withLock { state throws(TransportError) -> CurlTransport in
            guard !state.closed else {
                throw TransportError(.cancelled, "The transport is shut down.", context: ["reason": "shutdown"])
            }
            if let transport = state.transport { return transport }
            let transport = try StationParts.syncTransport(settings)
            state.transport = transport
            return transport
        }
    }

    /// Fails requests in flight (`CurlTransport.shutdown`) and refuses later uses. Idempotent.
    func shutdown() {
        let transport = state.withLock { state in
            state.closed = true
            return state.transport
        }
        transport?.shutdown()
    }
}
