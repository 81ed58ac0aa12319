/// The seam between the network and what talks over it (the sync core, the FCM client):
/// `CurlTransport` in the agent, one shared by both.
public protocol HTTPTransport: Sendable {
    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse

    /// Where a task that mostly waits for this transport's answers should run, if the transport
    /// has such a place (`FCMTransport`: its event loop); nil means the caller's own executor.
    /// Only non-blocking code may run there.
    var preferredExecutor: (any TaskExecutor)? { get }
}

extension HTTPTransport {
    public var preferredExecutor: (any TaskExecutor)? { nil }
}

extension CurlTransport: HTTPTransport {}
