/// The seam between the network and what talks over it (the sync core, the FCM client):
/// `CurlTransport` in the agent, one shared by both.
public protocol HTTPTransport: Sendable {
    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse
}

extension CurlTransport: HTTPTransport {}
