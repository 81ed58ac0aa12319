/// What one FCM send is for: a notification on its own or a digest of held ones.
public enum PushTarget: Sendable, Hashable {
    case notification(Int64)
    case digest(Int64)

    /// A short stable key (`n12`, `d3`) for logs and in-memory schedules.
    public var key: String {
        switch self {
        case .notification(let id): "n\(id)"
        case .digest(let id): "d\(id)"
        }
    }
}
