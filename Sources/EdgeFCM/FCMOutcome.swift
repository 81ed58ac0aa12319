/// What one send came to (PSH-9), for the sender to act on.
public enum FCMOutcome: Sendable, Hashable {
    /// Accepted; `name` is FCM's `projects/{id}/messages/{n}`.
    case sent(name: String)
    /// The token is dead (UNREGISTERED, SENDER_ID_MISMATCH, INVALID_ARGUMENT on message.token):
    /// retire the device; `reason` is the FCM error code.
    case pruneToken(reason: String)
    /// The message itself was refused (INVALID_ARGUMENT on the payload, another 4xx): fail it and
    /// keep the token.
    case failed(reason: String)
    /// Transient (429, 5xx, 502 HTML, timeouts): try again after `after` seconds.
    case retry(after: Double, reason: String)
    /// No access token (invalid_grant, token endpoint down): nothing can be sent for the project
    /// until this is fixed; the message is not at fault.
    case unauthenticated(FCMError)
}
