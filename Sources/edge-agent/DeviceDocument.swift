/// One device in `edge push devices --json`; the token shortened.
struct DeviceDocument: Encodable {
    let token: String
    let platform: String
    let registeredAt: String

    enum CodingKeys: String, CodingKey {
        case token, platform, registeredAt = "registered_at"
    }
}
