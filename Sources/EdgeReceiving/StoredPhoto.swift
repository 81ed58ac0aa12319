/// A JPEG kept as evidence, named by its content (RCV-2).
public struct StoredPhoto: Sendable, Hashable, Codable {
    /// Lower-case hex SHA-256 of the JPEG bytes.
    public var sha256: String
    public var bytes: Int
    public var width: Int
    public var height: Int
    /// Unix seconds when the backend acknowledged it; nil until then.
    public var uploadedAt: Double?

    public init(sha256: String, bytes: Int, width: Int, height: Int, uploadedAt: Double? = nil) {
        self.sha256 = sha256
        self.bytes = bytes
        self.width = width
        self.height = height
        self.uploadedAt = uploadedAt
    }

    enum CodingKeys: String, CodingKey {
        case sha256, bytes, width, height
        case uploadedAt = "uploaded_at"
    }
}
