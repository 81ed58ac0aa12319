/// What went wrong in the sync core, for callers that branch on it.
public enum SyncErrorCode: String, Sendable, Hashable {
    /// The sync configuration is unusable (base URL, timeouts).
    case invalidConfiguration
    /// The local database failed; `context["store"]` has the store's code.
    case storeFailure
    /// The backend could not be reached (network, TLS, timeout).
    case transportFailure
    /// The backend answered with a non-2xx status.
    case serverRefused
    /// The backend's answer did not match the contract.
    case invalidAnswer
    /// Another sender holds this database's sender lock.
    case senderBusy
    /// No token for the credential.
    case missingToken
}
