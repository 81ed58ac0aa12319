/// Error codes the contract defines for `error.code`. Servers may send others: they are kept
/// as text in `APIError.code` and handled by HTTP status alone.
public enum APIErrorCode: String, Sendable, Hashable, CaseIterable {
    case invalidRequest = "INVALID_REQUEST"
    case unauthorized = "UNAUTHORIZED"
    /// 403: the enrollment's token was revoked (ENR-10).
    case tokenRevoked = "TOKEN_REVOKED"
    /// 403: the patient was disconnected from the study (ENR-10).
    case patientDisconnected = "PATIENT_DISCONNECTED"
    case notFound = "NOT_FOUND"
    /// 409: the server's version wins (SYN-7, RCV-3); `details.server_version` carries it.
    case conflict = "CONFLICT"
    case invalidLinkingCode = "INVALID_LINKING_CODE"
    /// 403: a vendor QR of another tenant (RCV-4).
    case wrongTenant = "WRONG_TENANT"
    case upgradeRequired = "UPGRADE_REQUIRED"
    case rateLimited = "RATE_LIMITED"
    case serverError = "SERVER_ERROR"
    case unavailable = "UNAVAILABLE"
}
