/// One request the stand-in received on a contract path, for tests to assert on what a client
/// sent. The Authorization header's value is never kept, only whether it was there.
public struct RecordedRequest: Sendable, Hashable, Codable {
    /// Order of arrival, from 1.
    public var id: Int
    public var method: String
    /// Without the query.
    public var path: String
    public var query: String?
    /// Lower-cased names; `authorization` is left out (see `hasAuthorization`).
    public var headers: [String: String]
    public var hasAuthorization: Bool
    public var idempotencyKey: String?
    /// Bytes of body received (all of them, or up to the moment the connection was closed).
    public var bodySize: Int
    /// The fault that hit this request, if any.
    public var fault: FaultKind?
    /// The status answered; nil when no answer was written (refuse, drop, dropBeforeApply, or a
    /// request still in flight).
    public var status: Int?
    /// True when the client closed the connection before the answer was complete: it gave up on
    /// a `stall` or `trickle` (its timeout, or a shutdown). Nil otherwise.
    public var abandoned: Bool?

    public init(
        id: Int, method: String, path: String, query: String? = nil, headers: [String: String], hasAuthorization: Bool,
        idempotencyKey: String?, bodySize: Int = 0, fault: FaultKind? = nil, status: Int? = nil
    ) {
        self.id = id
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.hasAuthorization = hasAuthorization
        self.idempotencyKey = idempotencyKey
        self.bodySize = bodySize
        self.fault = fault
        self.status = status
    }

    enum CodingKeys: String, CodingKey {
        case id, method, path, query, headers
        case hasAuthorization = "has_authorization"
        case idempotencyKey = "idempotency_key"
        case bodySize = "body_size"
        case fault, status, abandoned
    }
}
