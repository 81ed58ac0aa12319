/// Which tokens a revocation hits.
public enum TokenSelector: Sendable, Hashable {
    case token(String)
    /// Every token starting with this text (issued access tokens start `at.`, refresh tokens `rt.`).
    case prefix(String)
    /// Every token issued for this enrollment (access and refresh).
    case enrollment(String)
}
