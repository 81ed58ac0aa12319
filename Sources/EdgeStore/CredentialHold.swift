import GRDB

/// A credential whose entries are kept but not sent: its token was revoked (ENR-10) or its
/// enrollment waits for study start (ENR-13). Released when the vault receives a new token for
/// the credential (AGT-6), by `edge sync release`, or by the enrollment capability.
public struct CredentialHold: Sendable, Hashable {
    public let credential: String
    public let reason: String
    /// Unix seconds.
    public let since: Double
    /// A keyed hash of the rejected token; nil when none was known.
    public let tokenFingerprint: String?

    init(row: Row) {
        credential = row["credential"]
        reason = row["reason"]
        since = row["since"]
        tokenFingerprint = row["token_fingerprint"]
    }
}
