import GRDB

/// A credential whose entries are kept but not sent: its token was revoked (ENR-10) or its
/// enrollment waits for study start (ENR-13). Released by the enrollment capability.
public struct CredentialHold: Sendable, Hashable {
    public let credential: String
    public let reason: String
    /// Unix seconds.
    public let since: Double

    init(row: Row) {
        credential = row["credential"]
        reason = row["reason"]
        since = row["since"]
    }
}
