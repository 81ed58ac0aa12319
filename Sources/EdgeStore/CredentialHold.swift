import GRDB

/// A credential whose entries are kept but not sent: its token was revoked (ENR-10) or its
/// enrollment waits for study start (ENR-13); `kind` says which and who may end it. Released when
/// the vault receives a new token for the credential (AGT-6) or by `edge sync release`, where the
/// kind allows it, or by the capability that declared the kind.
public struct CredentialHold: Sendable, Hashable {
    public let credential: String
    public let reason: String
    /// Unix seconds.
    public let since: Double
    /// A keyed hash of the rejected token; nil when none was known.
    public let tokenFingerprint: String?
    public let kind: HoldKind

    init(row: Row) {
        credential = row["credential"]
        reason = row["reason"]
        since = row["since"]
        tokenFingerprint = row["token_fingerprint"]
        kind = HoldKind(name: row["kind"], waitingFor: row["waiting_for"], isFault: row["fault"], operatorMayRelease: row["operator_release"])
    }
}
