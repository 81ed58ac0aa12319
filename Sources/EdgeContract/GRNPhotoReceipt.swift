/// The answer to `PUT /api/grn/photos/{sha256}` (RCV-2): 201 when the photo was stored, 200 when
/// the server already had it (a retried or repeated upload is a no-op).
public struct GRNPhotoReceipt: Sendable, Hashable, Codable {
    /// Lower-case hex SHA-256 of the JPEG, as in the path.
    public var sha256: String
    public var bytes: Int
    /// When the server first stored it, with UTC offset.
    public var receivedAt: String

    public init(sha256: String, bytes: Int, receivedAt: String) {
        self.sha256 = sha256
        self.bytes = bytes
        self.receivedAt = receivedAt
    }

    enum CodingKeys: String, CodingKey {
        case sha256, bytes
        case receivedAt = "received_at"
    }

    /// The largest photo the contract accepts (4 MiB): a dock photo at 85 % quality is far smaller.
    public static let maxBytes = 4 << 20
    public static let contentType = "image/jpeg"
}
