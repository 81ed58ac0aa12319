/// Why the stand-in could not start.
public enum StandinErrorCode: String, Sendable, Hashable {
    /// Asked to bind an address other than 127.0.0.1.
    case notLoopback = "not-loopback"
    case invalidPort = "invalid-port"
    case alreadyStarted = "already-started"
    /// The server stopped before it reported its port (bind failure, port in use).
    case startFailed = "start-failed"
    /// The `--fcm-service-account` file cannot be read, parsed or written.
    case serviceAccount = "service-account"
}
