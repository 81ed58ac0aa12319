/// A bearer token the stand-in knows.
struct TokenRecord: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        case access
        case refresh
        /// From the configuration (`--token`): any call, no enrollment.
        case fixed
    }

    var token: String
    var kind: Kind
    var enrollmentID: String?
    /// Set by revocation: every call with this token is answered 403 with this code.
    var revokedCode: RevocationCode?
}
