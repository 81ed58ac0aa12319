/// A user's push preferences (PSH-2). Quiet hours are validated when built (PSH-3), so a stored
/// preference is always usable.
public struct PushPreferences: Sendable, Hashable {
    /// Default override types: approvals wait for nobody (PSH-2).
    public static let defaultOverrideTypes: Set<NotificationType> = [.approvalPending]

    public let userID: String
    public var pushEnabled: Bool
    /// IANA name; nil means the station's zone (PSH-3).
    public var timeZone: String?
    public var quietHours: QuietHours
    /// Types that bypass quiet hours.
    public var overrideTypes: Set<NotificationType>
    /// Types switched off; everything else is on (new types arrive switched on).
    public var disabledTypes: Set<NotificationType>

    /// Throws `.invalidArgument` for an empty or over-long user id, `.invalidZoneName` for a zone
    /// name that is not IANA-shaped (whether the zone exists is checked when it is used and by
    /// `PushStore.savePreferences`).
    public init(userID: String, pushEnabled: Bool = true, timeZone: String? = nil, quietHours: QuietHours = .standard,
                overrideTypes: Set<NotificationType> = PushPreferences.defaultOverrideTypes,
                disabledTypes: Set<NotificationType> = []) throws(PushError) {
        try Self.validateUserID(userID)
        if let timeZone { try TimeZoneDatabase.validate(timeZone) }
        self.userID = userID
        self.pushEnabled = pushEnabled
        self.timeZone = timeZone
        self.quietHours = quietHours
        self.overrideTypes = overrideTypes
        self.disabledTypes = disabledTypes
    }

    public func isEnabled(_ type: NotificationType) -> Bool { !disabledTypes.contains(type) }

    static let maxUserIDBytes = 200

    static func validateUserID(_ userID: String) throws(PushError) {
        guard !userID.isEmpty, userID.utf8.count <= maxUserIDBytes, !userID.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw PushError(.invalidArgument, "A user id must be 1 to \(maxUserIDBytes) bytes without control characters.",
                            context: ["field": "userID", "bytes": String(userID.utf8.count)])
        }
    }
}
