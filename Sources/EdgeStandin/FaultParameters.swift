import EdgeContract

/// The knobs of a fault; each kind reads the ones it needs.
public struct FaultParameters: Sendable, Hashable, Codable {
    /// `status`: the HTTP status to answer (default 503).
    public var status: Int?
    /// `status`: the Retry-After value, sent as given: delay-seconds (`"2"`) or an HTTP-date.
    public var retryAfter: String?
    /// `status`: `error.code`; default by status (401 UNAUTHORIZED, 403 TOKEN_REVOKED, 409 CONFLICT,
    /// 426 UPGRADE_REQUIRED, 429 RATE_LIMITED, 503 UNAVAILABLE, other 5xx SERVER_ERROR, other 4xx
    /// INVALID_REQUEST).
    public var code: String?
    public var message: String?
    /// `status`: `error.details` as given, e.g. `{"server_version": ..., "changes": "..."}` for 409.
    public var details: JSONValue?
    /// `delay`: milliseconds (default 100).
    public var delayMS: Int?
    /// `trickle`: milliseconds between bytes (default 1000).
    public var intervalMS: Int?

    public init(status: Int? = nil, retryAfter: String? = nil, code: String? = nil, message: String? = nil, details: JSONValue? = nil, delayMS: Int? = nil,
                intervalMS: Int? = nil) {
        self.status = status
        self.retryAfter = retryAfter
        self.code = code
        self.message = message
        self.details = details
        self.delayMS = delayMS
        self.intervalMS = intervalMS
    }

    enum CodingKeys: String, CodingKey {
        case status
        case retryAfter = "retry_after"
        case code, message, details
        case delayMS = "delay_ms"
        case intervalMS = "interval_ms"
    }
}
