/// What went wrong in EdgeFCM, for callers that branch on it.
public enum FCMErrorCode: String, Sendable, Hashable {
    /// The service-account JSON is not JSON, lacks a field, is not a service account, or its
    /// private key does not load.
    case invalidServiceAccount
    /// The message breaks an FCM rule before sending (an apns-collapse-id over 64 bytes, an
    /// empty token, a TTL already passed).
    case invalidMessage
    /// The serialized `{"message": ...}` is over FCM's 4096 bytes.
    case messageTooLarge
    /// The token endpoint answered `invalid_grant`: the station clock is off (iat/exp outside
    /// Google's window) or the key was revoked or does not belong to client_email.
    case invalidGrant
    /// The token endpoint failed otherwise (unreachable, 5xx, an answer without a token).
    case tokenEndpointFailure
    /// Signing the JWT failed in OpenSSL.
    case signingFailure
    /// The `push` section of the station configuration has a bad value.
    case invalidConfiguration
}
