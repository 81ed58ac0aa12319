/// Why the stand-in could not start.
public enum StandinErrorCode: String, Sendable, Hashable {
    /// Asked to bind an address other than 127.0.0.1.
    case notLoopback = "NOT_LOOPBACK"
    case invalidPort = "INVALID_PORT"
    case alreadyStarted = "ALREADY_STARTED"
    /// The server stopped before it reported its port (bind failure, port in use).
    case startFailed = "START_FAILED"
    /// The `--fcm-service-account` file cannot be read, parsed or written.
    case serviceAccount = "SERVICE_ACCOUNT"
}
