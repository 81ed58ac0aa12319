/// New tokens for an enrollment. Both replace the old ones: the server may rotate the refresh
/// token, and when `refreshToken` is absent the station keeps none.
public struct EnrollmentRefreshResponse: Sendable, Hashable, Codable {
    public var accessToken: String
    public var refreshToken: String?
    public var expiresAt: String?

    public init(accessToken: String, refreshToken: String? = nil, expiresAt: String? = nil) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
    }

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case refreshToken = "refresh_token"
        case expiresAt = "expires_at"
    }
}
