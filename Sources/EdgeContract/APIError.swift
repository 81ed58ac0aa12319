/// The body of every non-2xx answer: `{"error": {"code": ..., "message": ..., "details": {...}}}`.
public struct APIError: Sendable, Hashable, Codable {
    public var code: String
    public var message: String
    /// Code-specific: for CONFLICT, `server_version` (the record as the server has it) and
    /// `changes` (a sentence for the operator saying what differs).
    public var details: JSONValue?

    public init(code: String, message: String, details: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.details = details
    }

    public init(_ code: APIErrorCode, _ message: String, details: JSONValue? = nil) {
        self.init(code: code.rawValue, message: message, details: details)
    }

    public var knownCode: APIErrorCode? { APIErrorCode(rawValue: code) }
}
