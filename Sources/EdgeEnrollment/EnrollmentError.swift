import EdgeCore

/// Why an enrollment operation failed. `message` is what the coordinator reads: for the portal's
/// answers and the attempt limit it is ENR-5 / ENR-7 word for word. Context never holds the code,
/// a token or any part of them (ENR-8): counts, states, the failure type.
public typealias EnrollmentError = CodedError<EnrollmentErrorCode>

public enum EnrollmentErrorCode: String, Sendable, Hashable {
    /// Local validation (ENR-3) refused the code; nothing was sent. The message is ENR-3's.
    case localValidation = "local-validation"
    /// The portal answered invalid, expired or already used (one answer, ENR-5).
    case invalidCode = "invalid-code"
    /// HTTP 5xx (not retried, ENR-6), or an answer that breaks the contract.
    case serverError = "server-error"
    /// No connection after the retries (ENR-6).
    case noNetwork = "no-network"
    /// No answer within the timeout (ENR-5: 30 s).
    case timedOut = "timed-out"
    /// ENR-7: five attempts in five minutes; `context["retry_after"]` is the seconds left.
    case rateLimited = "rate-limited"
    /// ENR-14: a re-enrollment code that resolved to another patient; nothing changed.
    case differentPatient = "different-patient"
    /// ENR-11: the state machine refused the transition.
    case invalidTransition = "invalid-transition"
    case notFound = "not-found"
    /// The vault could not keep or give the tokens.
    case vault = "vault"
    /// The database could not record the change.
    case store = "store"
    /// The station is not configured for this (no sponsor table, no vault).
    case notConfigured = "not-configured"
    /// The camera could not be used to read a code.
    case camera = "camera"
    /// No valid linking code was seen before the time ran out.
    case noCodeSeen = "no-code-seen"
    /// An authenticated call was answered 401 / 403 TOKEN_REVOKED / PATIENT_DISCONNECTED (ENR-10).
    case revoked = "revoked"
}

extension CodedError where Code == EnrollmentErrorCode {
    /// ENR-5, word for word.
    public static let invalidCodeMessage =
        "Invalid linking code. Please check the code and try again, or contact your study coordinator for a new code."
    public static let serverErrorMessage = "Server error. Please try again later or contact your study coordinator."
    public static let noNetworkMessage = "No internet connection. Please check your connection and try again."
    public static let timedOutMessage = "Connection timed out. Please try again."
    /// ENR-7, word for word; `rateLimited(retryAfter:)` adds the cooldown left.
    public static let rateLimitedMessage = "Too many attempts. Please wait 5 minutes before trying again."

    public static func rateLimited(retryAfter seconds: Int) -> EnrollmentError {
        let minutes = seconds / 60, rest = seconds % 60
        let left = minutes > 0 ? "\(minutes) min \(rest) s" : "\(rest) s"
        return EnrollmentError(.rateLimited, rateLimitedMessage + " (\(left) left)", context: ["retry_after": String(seconds)])
    }
}
