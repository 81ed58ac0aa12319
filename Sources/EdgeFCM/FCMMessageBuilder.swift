import EdgeContract

/// Builds FCM HTTP v1 messages (PSH-7): exactly one target (the device token), `data` values all
/// strings, notification title/body, Android and APNs blocks carrying the same tag, badge and
/// expiry, and a serialized size checked before sending. What the relay sends (a notification
/// record, a digest) is mapped onto this in EdgePush (`FCMMessageBuilder+Push.swift`).
public enum FCMMessageBuilder {
    /// APNs refuses an apns-collapse-id over 64 bytes.
    public static let maxCollapseIDBytes = 64

    /// One message to one device. `channel` is the Android notification channel, `thread` the
    /// APNs thread id; `expiresAt` and `now` are Unix seconds, and the TTL sent is what is left.
    /// Throws `.invalidMessage` when the TTL has passed, the token is empty or the tag is too
    /// long, `.messageTooLarge` over 4096 bytes.
    public static func build(token: String, title: String, body: String, data: [String: JSONValue], tag: String, channel: String,
                             thread: String, urgent: Bool, badge: Int, expiresAt: Int64, now: Int64) throws(FCMError) -> FCMMessage {
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
                    "channel_id": .string(channel),
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
                        "thread-id": .string(thread),
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
