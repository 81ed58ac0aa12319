public enum TransportErrorCode: String, Sendable, Hashable {
    case invalidURL, insecureURL, couldNotResolve, couldNotConnect, timedOut, tlsFailure, pinMismatch, connectionDropped, responseTooLarge, protocolError, cancelled, internalFailure
}
