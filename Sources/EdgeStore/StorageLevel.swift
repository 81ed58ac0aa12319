/// How close the outbox is to its limits (SYN-4 warns at 80 % and 95 %).
public enum StorageLevel: String, Sendable, Hashable, Comparable {
    case normal
    case warning80
    case warning95

    public static func < (lhs: StorageLevel, rhs: StorageLevel) -> Bool {
        lhs.rank < rhs.rank
    }

    private var rank: Int {
        switch self {
        case .normal: 0
        case .warning80: 1
        case .warning95: 2
        }
    }
}
