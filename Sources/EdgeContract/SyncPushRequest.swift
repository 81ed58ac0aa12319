/// `POST /api/sync/push`: one outbox entry, sent under its `Idempotency-Key` header. The key,
/// sequence and creation time are the ones fixed at enqueue (SYN-2); `created_at` is the local
/// wall-clock time with its UTC offset (SYN-10).
public struct SyncPushRequest: Sendable, Hashable, Codable {
    public var deviceUUID: String
    public var stream: String
    public var kind: String
    public var sequence: Int64
    public var createdAt: String
    public var payload: JSONValue

    public init(deviceUUID: String, stream: String, kind: String, sequence: Int64, createdAt: String, payload: JSONValue) {
        self.deviceUUID = deviceUUID
        self.stream = stream
        self.kind = kind
        self.sequence = sequence
        self.createdAt = createdAt
        self.payload = payload
    }

    enum CodingKeys: String, CodingKey {
        case deviceUUID = "device_uuid"
        case stream, kind, sequence
        case createdAt = "created_at"
        case payload
    }
}
