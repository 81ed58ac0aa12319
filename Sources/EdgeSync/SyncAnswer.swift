import EdgeCore
import EdgeContract
import EdgeHTTP

/// The SYN-7 answer table: what one attempt at sending an entry means for it.
public enum SyncAnswer: Sendable, Hashable {
    /// 2xx (a replay of an already-applied key included): the entry is done.
    case done(duplicate: Bool)
    /// Network error, timeout, 408, 429, 5xx: try again later. `serverWait` is the
    /// Retry-After wait when the server gave one. `countsAgainstEntry` is false for transport
    /// failures (the entry did nothing wrong).
    case retry(reason: String, serverWait: Double?, countsAgainstEntry: Bool)
    /// 401, or 403 TOKEN_REVOKED / PATIENT_DISCONNECTED (ENR-10).
    case credentialRejected(status: Int, code: String?)
    /// 409: the server's version wins; `details` is the error's details object as JSON bytes.
    case conflict(details: [UInt8], changes: String?)
    /// 426: sending stops until the agent is updated.
    case upgradeRequired(message: String)
    /// Any other 4xx: kept as a dead letter with the server's reason.
    case deadLetter(reason: String)

    /// Classifies an HTTP answer.
    ///
    /// Decision: 1xx and 3xx finals (redirects are not followed) are a misconfigured or broken
    /// server, not a verdict on the entry: retried like 5xx so nothing is dropped, and visible
    /// in `edge sync status` as the last failure.
    public static func classify(_ response: HTTPResponse, now: Double) -> SyncAnswer {
        let status = response.status
        let error = try? ContractCoding.decode(APIErrorEnvelope.self, from: response.body).error
        let summary = "HTTP \(status)" + (error.map { " " + printable($0.code, limit: 64) } ?? "")
        switch status {
        case 200..<300:
            return .done(duplicate: response.header(SyncHeaderName.idempotentReplayed)?.lowercased() == "true")
        case 408, 429, 500..<600:
            let wait = response.header(SyncHeaderName.retryAfter).flatMap { RetryAfter.seconds($0, now: now) }
            return .retry(reason: summary, serverWait: wait, countsAgainstEntry: true)
        case 401:
            return .credentialRejected(status: status, code: error?.code)
        case 403 where error?.knownCode == .tokenRevoked || error?.knownCode == .patientDisconnected:
            return .credentialRejected(status: status, code: error?.code)
        case 409:
            let details = (error?.details).flatMap { try? ContractCoding.encode($0) } ?? response.body
            let changes = error?.details?["changes"]?.stringValue.map { printable($0, limit: 500) }
            return .conflict(details: details, changes: changes)
        case 426:
            return .upgradeRequired(message: error.map { printable($0.message, limit: 300) } ?? "The backend requires a newer version of edge.")
        case 400..<500:
            return .deadLetter(reason: summary + (error.map { ": " + printable($0.message, limit: 300) } ?? ""))
        default:
            return .retry(reason: summary + " (unexpected status)", serverWait: nil, countsAgainstEntry: true)
        }
    }

    /// Classifies a transport failure: every one is retried; none counts against the entry.
    public static func classify(_ error: TransportError) -> SyncAnswer {
        .retry(reason: error.message, serverWait: nil, countsAgainstEntry: false)
    }

    /// Server text goes into the database and the operator's terminal: one line, printable, bounded.
    static func printable(_ text: String, limit: Int) -> String { DisplayText.oneLine(text, limit: limit) }
}
