import EdgeCore

/// The transport's error. Messages and context never contain header values or bodies:
/// context holds the method, the URL without query or user information, curl's result code and
/// its error-buffer text (which names hosts, ports and TLS reasons, never request data).
public typealias TransportError = CodedError<TransportErrorCode>

extension TransportError {
    /// True for failures of the channel rather than of the request: the sender keeps the entry
    /// queued, retries with backoff and does not count the attempt against the entry (SYN-7).
    ///
    /// Decision: TLS failures and pin mismatches count as transport failures. Neither is the
    /// entry's fault, and dead-lettering every queued entry because a certificate or pin is wrong
    /// would lose the queue's order for nothing; the sender must still tell the operator, which
    /// `isSecurityFailure` is for. `protocolError` counts too (a broken middlebox or a server
    /// restart mid-stream). Not transport failures: a bad URL or options (configuration; retrying
    /// cannot help), `responseTooLarge` (the server answered), `cancelled` (the caller's doing)
    /// and `internalFailure`.
    public var isTransportFailure: Bool {
        switch code {
        case .couldNotResolve, .couldNotConnect, .timedOut, .connectionDropped, .tlsFailure, .pinMismatch, .protocolError:
            true
        case .invalidURL, .insecureURL, .responseTooLarge, .cancelled, .invalidOptions, .invalidRequest, .internalFailure:
            false
        }
    }

    /// True when the server's identity could not be established (certificate or pin): retries
    /// are pointless until someone fixes the certificate, the pins or the network in between.
    public var isSecurityFailure: Bool {
        code == .tlsFailure || code == .pinMismatch
    }
}
