import EdgeContract
import EdgeFCM

/// The relay's records as FCM messages (PSH-7): what goes into `data`, which Android channel a
/// group uses, how long a digest is worth delivering. EdgeFCM knows the message format, not
/// the relay's records.
extension FCMMessageBuilder {
    /// A digest has no TTL of its own: it is worth delivering for a day after its release.
    /// Decision: a day, because the next night's digest replaces it (same tag) anyway.
    public static let digestTTLSeconds: Int64 = 24 * 3600

    /// The Android notification channel of a group (the app creates these four).
    ///
    /// Decision: deliveries and enrollments are "updates"; assignments go to "general", the
    /// channel users leave on, since an assignment is work to do.
    public static func channel(for group: NotificationGroup) -> String {
        switch group {
        case .approvals: return "prokure_approvals"
        case .alerts: return "prokure_alerts"
        case .deliveries, .enrollments: return "prokure_updates"
        case .assignments: return "prokure_general"
        }
    }

    /// The message for one notification record to one device. `now` is Unix seconds: the TTL
    /// sent is what is left of the record's. Throws `.invalidMessage` when the TTL has passed,
    /// the token is empty or the tag is too long, `.messageTooLarge` over 4096 bytes.
    public static func message(for record: NotificationRecord, token: String, badge: Int, now: Int64) throws(FCMError) -> FCMMessage {
        var data: [String: JSONValue] = [
            "notification_id": .string(String(record.id)),
            "type": .string(record.type.rawValue),
            "priority": .string(record.priority.rawValue),
            "badge": .string(String(badge)),
        ]
        if let link = record.deepLink { data["deep_link"] = .string(link) }
        let group = record.type.group
        return try build(token: token, title: record.title, body: record.body, data: data, tag: record.tag,
                         channel: channel(for: group), thread: group.rawValue, urgent: record.priority != .normal, badge: badge,
                         expiresAt: record.expiresAt, now: now)
    }

    /// The message for one digest to one device: high priority when it carries urgent ones.
    public static func message(for digest: PushDigest, token: String, badge: Int, now: Int64) throws(FCMError) -> FCMMessage {
        var data: [String: JSONValue] = [
            "digest_id": .string(String(digest.id)),
            "group": .string(digest.group.rawValue),
            "count": .string(String(digest.count)),
            "urgent_count": .string(String(digest.urgentCount)),
            "badge": .string(String(badge)),
        ]
        if let link = digest.deepLink { data["deep_link"] = .string(link) }
        return try build(token: token, title: digest.title, body: digest.body, data: data, tag: digest.tag,
                         channel: channel(for: digest.group), thread: digest.group.rawValue, urgent: digest.urgentCount > 0,
                         badge: badge, expiresAt: digest.releaseAt + digestTTLSeconds, now: now)
    }
}
