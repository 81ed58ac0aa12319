/// `POST /api/devices/register`: the station introduces itself (ENR-15). Sent again after an
/// upgrade; the server keeps the first registration time and updates the rest.
public struct DeviceRegistrationRequest: Sendable, Hashable, Codable {
    public var deviceUUID: String
    public var appVersion: String
    /// Always `LINUX` (SYN-6).
    public var platform: String
    public var osVersion: String
    /// IANA zone name, e.g. `Europe/Berlin`.
    public var timezone: String

    public init(deviceUUID: String, appVersion: String, platform: String = SyncHeaderName.platformValue, osVersion: String, timezone: String) {
        self.deviceUUID = deviceUUID
        self.appVersion = appVersion
        self.platform = platform
        self.osVersion = osVersion
        self.timezone = timezone
    }

    enum CodingKeys: String, CodingKey {
        case deviceUUID = "device_uuid"
        case appVersion = "app_version"
        case platform
        case osVersion = "os_version"
        case timezone
    }
}
