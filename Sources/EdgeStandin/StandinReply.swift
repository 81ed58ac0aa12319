import EdgeContract

/// An answer as the backend logic produces it. Bodies are JSON encoded with ContractCoding (sorted
/// keys), so a replayed answer is byte for byte the first one.
public struct StandinReply: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// Seconds to wait before answering (the FCM stand-in's `slow` fault).
    public var delay: Double?
    /// After this answer the connection goes away gracefully: GOAWAY on HTTP/2, `Connection:
    /// close` on HTTP/1.1 (the FCM stand-in's `goaway` fault).
    public var closeConnection = false

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    static func json<T: Encodable>(_ status: Int, _ value: T) -> StandinReply {
        do {
            return StandinReply(status: status, headers: [("Content-Type", SyncHeaderName.jsonContentType)], body: try ContractCoding.encode(value))
        } catch {
            // Only a non-finite Double can fail to encode; answering 500 says the stand-in is at fault.
            return .error(500, .serverError, "The stand-in could not encode its answer: \(error)")
        }
    }

    static func error(_ status: Int, _ code: APIErrorCode, _ message: String, details: JSONValue? = nil) -> StandinReply {
        error(status, code: code.rawValue, message, details: details)
    }

    static func error(_ status: Int, code: String, _ message: String, details: JSONValue? = nil) -> StandinReply {
        json(status, APIErrorEnvelope(error: APIError(code: code, message: message, details: details)))
    }

    /// The error code a stand-in uses for `status` when a fault gives none.
    static func defaultCode(for status: Int) -> APIErrorCode {
        switch status {
        case 401: .unauthorized
        case 403: .tokenRevoked
        case 404: .notFound
        case 409: .conflict
        case 426: .upgradeRequired
        case 429: .rateLimited
        case 503: .unavailable
        case 500...599: .serverError
        default: .invalidRequest
        }
    }

    /// The error answer a `status` fault writes.
    static func fault(_ parameters: FaultParameters) -> StandinReply {
        let status = parameters.status ?? 503
        let code = parameters.code ?? defaultCode(for: status).rawValue
        var reply = error(status, code: code, parameters.message ?? "Injected by the stand-in (status fault)", details: parameters.details)
        if let retryAfter = parameters.retryAfter {
            reply.headers.append((SyncHeaderName.retryAfter, retryAfter))
        }
        return reply
    }
}
