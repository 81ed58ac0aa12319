import EdgeCore

/// How `FCMClient` talks to FCM and backs off.
public struct FCMClientConfiguration: Sendable {
    /// `https://fcm.googleapis.com` in production; the stand-in's base URL in tests.
    public var endpoint: String
    /// Exponential backoff with jitter for 5xx and timeouts, added to `minimumRetryDelay`.
    public var backoff: BackoffPolicy
    /// PSH-9: the first retry of a transient failure waits at least this long.
    public var minimumRetryDelay: Double
    /// The wait after a 429 without Retry-After (PSH-9: 60 s).
    public var defaultQuotaWait: Double

    public static let productionEndpoint = "https://fcm.googleapis.com"

    public init(endpoint: String = FCMClientConfiguration.productionEndpoint,
                backoff: BackoffPolicy = BackoffPolicy(base: 10, cap: 600),
                minimumRetryDelay: Double = 10, defaultQuotaWait: Double = 60) {
        self.endpoint = endpoint
        self.backoff = backoff
        self.minimumRetryDelay = minimumRetryDelay
        self.defaultQuotaWait = defaultQuotaWait
    }
}
