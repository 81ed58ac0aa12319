/// The body of `POST /_standin/revoke`: exactly one selector and the code to answer from then on.
struct RevokeRequest: Sendable, Hashable, Codable {
    var token: String?
    var tokenPrefix: String?
    var enrollmentID: String?
    /// Default TOKEN_REVOKED.
    var code: RevocationCode?

    enum CodingKeys: String, CodingKey {
        case token
        case tokenPrefix = "token_prefix"
        case enrollmentID = "enrollment_id"
        case code
    }

    var selector: TokenSelector? {
        switch (token, tokenPrefix, enrollmentID) {
        case (let token?, nil, nil): .token(token)
        case (nil, let prefix?, nil): prefix.isEmpty ? nil : .prefix(prefix)
        case (nil, nil, let enrollment?): .enrollment(enrollment)
        default: nil
        }
    }
}
