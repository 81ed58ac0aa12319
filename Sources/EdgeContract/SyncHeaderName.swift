/// The request headers every call carries (SYN-6), and the stand-in's replay marker.
public enum SyncHeaderName {
    public static let authorization = "Authorization"
    public static let idempotencyKey = "Idempotency-Key"
    public static let deviceID = "X-Device-Id"
    public static let appVersion = "X-App-Version"
    public static let platform = "X-Platform"
    public static let osVersion = "X-OS-Version"
    public static let timezone = "X-Timezone"
    public static let contentType = "Content-Type"
    public static let retryAfter = "Retry-After"
    /// Set on an answer the server replayed for a key it had already applied.
    public static let idempotentReplayed = "Idempotent-Replayed"

    /// `X-Platform` is always this value (SYN-6).
    public static let platformValue = "LINUX"
    public static let jsonContentType = "application/json"
}
