import EdgeStore

/// What the enrollment capability decided after the server rejected a credential (ENR-10).
public enum CredentialVerdict: Sendable, Hashable {
    /// A refresh succeeded: send again now with the new token.
    case refreshed
    /// Revoked (or no refresh possible): hold the credential's entries, delete nothing. `kind`:
    /// the hold the deciding capability declares (enrollment's waits for a re-enrollment, which
    /// no operator release can replace); `.credential` when a new token ends it.
    case revoked(reason: String, kind: HoldKind = .credential)
    /// The refresh could not be decided (no network, a server error): transient errors never
    /// revoke (ENR-10), so the entry is retried later with backoff like any failed send.
    case undecided(reason: String)
}
