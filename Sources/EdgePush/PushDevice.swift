/// A registered device token of a user (PSH-2).
public struct PushDevice: Sendable, Hashable {
    public let id: Int64
    public let userID: String
    public let token: String
    public let platform: DevicePlatform
    /// Unix seconds.
    public let registeredAt: Int64
    /// Set when a newer device replaced it (more than 3) or the token was pruned.
    public let retiredAt: Int64?
    public let retiredReason: String?

    public var isActive: Bool { retiredAt == nil }
}
