/// An FCM error the stand-in answers instead of accepting a message (PSH-9), for `times`
/// messages (for ever when nil), to any token or only to `token`.
public struct FCMFault: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// 404 NOT_FOUND, errorCode UNREGISTERED.
        case unregistered
        /// 403 PERMISSION_DENIED, errorCode SENDER_ID_MISMATCH.
        case senderIDMismatch
        /// 400 INVALID_ARGUMENT with a field violation on `message.token`.
        case invalidToken
        /// 400 INVALID_ARGUMENT on the payload (`message.data`).
        case invalidPayload
        /// 429 RESOURCE_EXHAUSTED, errorCode QUOTA_EXCEEDED, with Retry-After when given.
        case quotaExceeded(retryAfter: String?)
        /// 500 INTERNAL or 503 UNAVAILABLE.
        case serverError(status: Int)
        /// 502 with an HTML page, as a Google front end sends.
        case badGatewayHTML
        /// 401 UNAUTHENTICATED even with a token the stand-in issued.
        case unauthenticated
        /// The message is accepted, then the connection is closed gracefully: GOAWAY on HTTP/2
        /// (streams already open finish, new ones need a new connection), like a front end
        /// being drained (PSH-10).
        case goAway
        /// The message is accepted after `seconds`.
        case slow(seconds: Double)
    }

    public var kind: Kind
    public var token: String?
    public var times: Int?

    public init(_ kind: Kind, token: String? = nil, times: Int? = 1) {
        self.kind = kind
        self.token = token
        self.times = times
    }
}
