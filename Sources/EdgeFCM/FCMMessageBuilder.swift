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
        let badgeValue = Int64(max(0, badge))
        // Decision (issue #31): the body is written straight into bytes, keys in the sorted order
        // `ContractCoding` writes (a test holds the two byte for byte), instead of building a
        // `JSONValue` tree of nested dictionaries and sorting each one's keys per message: that
        // tree was ~100,000 instructions a message, 7 % of the relay's per notification
        // (callgrind, Benchmarks section 6). Only `data`, the caller's dictionary, is sorted here.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(1024)
        func raw(_ text: StaticString) {
            text.withUTF8Buffer { bytes.append(contentsOf: $0) }
        }
        func string(_ value: String) { FCMJSONWriter.writeString(value, into: &bytes) }
        func integer(_ value: Int64) { bytes.append(contentsOf: String(value).utf8) }
        raw(#"{"message":{"android":{"collapse_key":"#)
        string(tag)
        raw(#","notification":{"channel_id":"#)
        string(channel)
        raw(#","notification_count":"#)
        integer(badgeValue)
        raw(#","tag":"#)
        string(tag)
        raw(urgent ? #"},"priority":"HIGH","ttl":"# : #"},"priority":"NORMAL","ttl":"#)
        string(String(ttl) + "s")
        raw(#"},"apns":{"headers":{"apns-collapse-id":"#)
        string(tag)
        raw(#","apns-expiration":"#)
        string(String(expiresAt))
        // 10: deliver now (alerts a sleeping phone); 5: at a power-friendly time.
        raw(urgent ? #","apns-priority":"10","apns-push-type":"alert"},"payload":{"aps":{"alert":{"body":"#
                   : #","apns-priority":"5","apns-push-type":"alert"},"payload":{"aps":{"alert":{"body":"#)
        string(body)
        raw(#","title":"#)
        string(title)
        raw(#"},"badge":"#)
        integer(badgeValue)
        raw(#","sound":"default","thread-id":"#)
        string(thread)
        raw(#"}}},"data":"#)
        var dataBytes: [UInt8] = []
        if FCMJSONWriter.write(.object(data), into: &dataBytes) {
            bytes.append(contentsOf: dataBytes)
        } else {
            // A floating-point value (FCMJSONWriter leaves those to ContractCoding).
            do {
                bytes.append(contentsOf: try ContractCoding.encode(JSONValue.object(data)))
            } catch {
                throw FCMError(.invalidMessage, "The message could not be serialized.")
            }
        }
        raw(#","notification":{"body":"#)
        string(body)
        raw(#","title":"#)
        string(title)
        raw(#"},"token":"#)
        string(token)
        raw("}}")
        guard bytes.count <= FCMMessage.maxBytes else {
            throw FCMError(.messageTooLarge, "The message is \(bytes.count) bytes; FCM accepts at most \(FCMMessage.maxBytes).",
                           context: ["bytes": String(bytes.count)])
        }
        return FCMMessage(token: token, body: bytes, expiresAt: expiresAt)
    }
}
