/// Where the sender gets the bearer token for an entry's credential (SYN-6): the vault in the
/// agent. nil means there is no token for that credential (never enrolled, or erased after
/// revocation), which holds the credential's entries rather than sending them unauthenticated.
public protocol TokenProvider: Sendable {
    func token(for credential: String?) async throws -> BearerToken?
}
