/// `{"error": APIError}`: the wrapper every error answer uses.
public struct APIErrorEnvelope: Sendable, Hashable, Codable {
    public var error: APIError

    public init(error: APIError) {
        self.error = error
    }
}
