import EdgeHTTP

/// Where the sender gets the bearer token for an entry's credential (SYN-6): the vault in the
/// agent. nil means there is no token for that credential (never enrolled, or erased after
/// revocation), which holds the credential's entries rather than sending them unauthenticated.
public protocol TokenProvider: Sendable {
    func token(for credential: String?) async throws -> BearerToken?
    /// A keyed hash of the current token, or nil when there is none or the provider cannot
    /// tell. A held credential whose fingerprint changes is released (AGT-6).
    func fingerprint(for credential: String?) async throws -> String?
}

extension TokenProvider {
    /// Providers that cannot fingerprint leave holds to `edge sync release`.
    public func fingerprint(for credential: String?) async throws -> String? { nil }
}
