import EdgeContract
import EdgePush

/// Builds FCM HTTP v1 messages from the relay's records (PSH-7): exactly one target (the device
/// token), `data` values all strings, notification title/body, Android and APNs blocks carrying
/// the same tag, badge and expiry, and a serialized size checked before sending.
public enum FCMMessageBuilder {
    /// APNs refuses an apns-collapse-id over 64 bytes.
    public static let maxCollapseIDBytes = 64
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
        return try build(token: token, title: record.title, body: record.body, data: data, tag: record.tag,
                         group: record.type.group, urgent: record.priority != .normal, badge: badge,
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
                         group: digest.group, urgent: digest.urgentCount > 0, badge: badge,
                         expiresAt: digest.releaseAt + digestTTLSeconds, now: now)
    }

    static func build(token: String, title: String, body: String, data: [String: JSONValue], tag: String, group: NotificationGroup,
                      urgent: Bool, badge: Int, expiresAt: Int64, now: Int64) throws(FCMError) -> FCMMessage {
        guard !token.isEmpty else {
            throw FCMError(.invalidMessage, "A message needs a device token.", context: ["field": "message.token"])
        }
        guard !tag.isEmpty, tag.utf8.count <= maxCollapseIDBytes else {
            throw FCMError(.invalidMessage, "A message's tag must be 1 to \(maxCollapseIDBytes) bytes to serve as apns-collapse-id.",
                           context: ["field": "apns-collapse-id", "bytes": String(tag.utf8.count)])
        }
        let ttl = expiresAt - now
        guard ttl > 0 else {
            throw FCMError(.invalidMessage, "The notification's TTL has passed; it is not sent.", context: ["expiresAt": String(expiresAt)])
        }
        let badgeValue = JSONValue.integer(Int64(max(0, badge)))
        let message: JSONValue = .object([
            "token": .string(token),
            "notification": .object(["title": .string(title), "body": .string(body)]),
            "data": .object(data),
            "android": .object([
                "priority": .string(urgent ? "HIGH" : "NORMAL"),
                "ttl": .string(String(ttl) + "s"),
                "collapse_key": .string(tag),
                "notification": .object([
                    "channel_id": .string(channel(for: group)),
                    "tag": .string(tag),
                    "notification_count": badgeValue,
                ]),
            ]),
            "apns": .object([
                "headers": .object([
                    // 10: deliver now (alerts a sleeping phone); 5: at a power-friendly time.
                    "apns-priority": .string(urgent ? "10" : "5"),
                    "apns-collapse-id": .string(tag),
                    "apns-expiration": .string(String(expiresAt)),
                    "apns-push-type": .string("alert"),
                ]),
                "payload": .object([
                    "aps": .object([
                        "alert": .object(["title": .string(title), "body": .string(body)]),
                        "badge": badgeValue,
                        "sound": .string("default"),
                        "thread-id": .string(group.rawValue),
                    ]),
                ]),
            ]),
        ])
        let document = JSONValue.object(["message": message])
        let bytes: [UInt8]
        if let written = FCMJSONWriter.serialize(document) {
            bytes = written
        } else {
            do {
                bytes = try ContractCoding.encode(document)
            } catch {
                // JSONValue holds no floating-point values here, so encoding cannot fail; kept total.
                throw FCMError(.invalidMessage, "The message could not be serialized.")
            }
        }
        guard bytes.count <= FCMMessage.maxBytes else {
            throw FCMError(.messageTooLarge, "The message is \(bytes.count) bytes; FCM accepts at most \(FCMMessage.maxBytes).",
                           context: ["bytes": String(bytes.count)])
        }
        return FCMMessage(token: token, body: bytes, expiresAt: expiresAt)
    }
}
