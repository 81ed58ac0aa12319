/// What went wrong sending a request, for the sender to branch on (see
/// `TransportError.isTransportFailure`). An HTTP error status is not a transport error: it
/// arrives as an `HTTPResponse`.
public enum TransportErrorCode: String, Sendable, Hashable {
    /// The URL does not parse, has no host, or uses a scheme other than http/https.
    case invalidURL
    /// `http://` to a host that is not loopback (127.0.0.0/8, ::1, localhost): refused before any traffic.
    case insecureURL
    /// DNS could not resolve the host.
    case couldNotResolve
    /// Nothing accepted the TCP connection (refused, unreachable).
    case couldNotConnect
    /// The connect or total timeout passed.
    case timedOut
    /// TLS handshake or certificate verification failed (unknown CA, wrong host name, expired…).
    case tlsFailure
    /// The certificate verified but the server's public key matches none of the configured pins.
    case pinMismatch
    /// The connection closed or broke before a complete response arrived.
    case connectionDropped
    /// The response body (or its header block) exceeded `maxResponseBytes`.
    case responseTooLarge
    /// The server's answer broke HTTP (malformed reply, HTTP/2 framing or stream error).
    case protocolError
    /// The calling task was cancelled, or the transport was shut down (`context["reason"]`).
    case cancelled
    /// The options are unusable (a malformed pin, a missing CA file, a non-positive limit).
    case invalidOptions
    /// The request is unusable (a header name or value with a control character).
    case invalidRequest
    /// libcurl failed in a way that is edge's or the system's fault (out of memory, bad option).
    case internalFailure
}
