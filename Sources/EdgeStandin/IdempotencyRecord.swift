import EdgeContract

/// The first answer given for an Idempotency-Key, kept to replay it (SYN-7).
///
/// Decision: keys are global, not per path; a key reused on another path or with another body is
/// refused with 422 INVALID_REQUEST. Bodies are compared as JSON values, not bytes, so a client
/// that re-serialises the same entry (member order, number spelling) is not punished. Every answer
/// the endpoint's logic gave after authentication and parsing is kept (200, and 404 / 409 / 422
/// refusals); malformed requests (400), auth failures and injected faults are not, since nothing
/// was decided for the key.
struct IdempotencyRecord: Sendable {
    var key: String
    var method: String
    var path: String
    var request: JSONValue
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]
    /// The body of a replay: for sync push the first answer with `status: duplicate`, otherwise
    /// the first body.
    var replayBody: [UInt8]
    var applications: Int
    var replays: Int
    var firstSeenAt: String
    var stream: String?
    var sequence: Int64?

    var appliedRecord: AppliedRecord {
        AppliedRecord(
            idempotencyKey: key, method: method, path: path, applications: applications, replays: replays, status: status,
            firstSeenAt: firstSeenAt, stream: stream, sequence: sequence)
    }
}
