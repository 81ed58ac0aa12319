/// Photo evidence attached to a GRN by content hash (RCV-2). The bytes are not part of this body;
/// the hash lets the server match them however they reach it, and lets a retry carry no image.
public struct GRNPhoto: Sendable, Hashable, Codable {
    /// Lower-case hex SHA-256 of the JPEG file.
    public var sha256: String
    /// Always `image/jpeg`: the camera pipeline stores JPEG.
    public var contentType: String

    public static let jpeg = "image/jpeg"

    public init(sha256: String, contentType: String = GRNPhoto.jpeg) {
        self.sha256 = sha256
        self.contentType = contentType
    }

    enum CodingKeys: String, CodingKey {
        case sha256
        case contentType = "content_type"
    }
}
