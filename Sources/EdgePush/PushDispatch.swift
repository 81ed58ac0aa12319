/// Something due to be sent, with what sending it needs, read in one snapshot: the user's active
/// devices and badge of that moment (PSH-5: every push carries the absolute count).
public struct PushDispatch: Sendable, Hashable {
    public enum Item: Sendable, Hashable {
        case notification(NotificationRecord)
        case digest(PushDigest)
    }

    public let item: Item
    public let devices: [PushDevice]
    public let badge: Int

    public var target: PushTarget {
        switch item {
        case .notification(let record): .notification(record.id)
        case .digest(let digest): .digest(digest.id)
        }
    }

    public var userID: String {
        switch item {
        case .notification(let record): record.userID
        case .digest(let digest): digest.userID
        }
    }
}
