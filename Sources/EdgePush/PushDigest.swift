import GRDB

/// The summary of a user's held notifications of one group, released at the end of quiet hours
/// (PSH-4).
public struct PushDigest: Sendable, Hashable {
    public let id: Int64
    public let userID: String
    public let group: NotificationGroup
    /// Stable per user and group (PSH-6): a retry, or the next night's digest, replaces it.
    public let tag: String
    /// "10 new assignments - 3 urgent".
    public let title: String
    public let body: String
    public let deepLink: String?
    public let count: Int
    public let urgentCount: Int
    /// When to send it (Unix seconds): the window's end plus jitter.
    public let releaseAt: Int64
    public let status: NotificationStatus
    public let reason: String?

    init(row: Row) throws(PushError) {
        guard let group = NotificationGroup(rawValue: row["type_group"]), let status = NotificationStatus(rawValue: row["status"]) else {
            throw PushError(.databaseFailure, "A push digest has a group or status this edge does not know.",
                            context: ["id": String(describing: row["id"] as Int64?)])
        }
        id = row["id"]
        userID = row["user_id"]
        self.group = group
        tag = row["tag"]
        title = row["title"]
        body = row["body"]
        deepLink = row["deep_link"]
        count = row["count"]
        urgentCount = row["urgent_count"]
        releaseAt = row["release_at"]
        self.status = status
        reason = row["reason"]
    }

    /// `d-<group>-<16 hex digits>`: FNV-1a of the user id, so the tag fits apns-collapse-id's 64
    /// bytes for any user id and does not show the id on the lock screen payload.
    static func tag(userID: String, group: NotificationGroup) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in userID.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        return "d-" + group.rawValue + "-" + String(repeating: "0", count: 16 - hex.count) + hex
    }
}
