/// The server's record of a registered station.
public struct DeviceRegistrationResponse: Sendable, Hashable, Codable {
    public var deviceUUID: String
    /// First registration, server time with UTC offset.
    public var registeredAt: String

    public init(deviceUUID: String, registeredAt: String) {
        self.deviceUUID = deviceUUID
        self.registeredAt = registeredAt
    }

    enum CodingKeys: String, CodingKey {
        case deviceUUID = "device_uuid"
        case registeredAt = "registered_at"
    }
}
