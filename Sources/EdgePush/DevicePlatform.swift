/// The platform of a registered device (PSH-2).
public enum DevicePlatform: String, Sendable, Hashable, CaseIterable {
    case android = "ANDROID"
    case ios = "IOS"
    case web = "WEB"
}
