/// The seam between the sync core and the network: `CurlTransport` in the agent. The push relay
/// sends through the same one.
public protocol HTTPTransport: Sendable {
    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse
}

extension CurlTransport: HTTPTransport {}
