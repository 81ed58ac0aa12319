/// Where a reader of due work got to, for `PushStore.dueDispatches(now:limit:after:)`: the
/// notifications after `notificationID`, the digests after (`digestReleaseAt`, `digestID`) in
/// the order they fall due. The start (`DispatchCursor()`) reads from the beginning.
///
/// Decision: the sender reads the next batch while the previous one is still being sent; those
/// are still QUEUED, so a read from the beginning would return them again. Reading on from a
/// cursor returns only what has not been read, whatever the size of the backlog.
public struct DispatchCursor: Sendable, Hashable {
    public var notificationID: Int64
    public var digestReleaseAt: Int64
    public var digestID: Int64

    public init(notificationID: Int64 = 0, digestReleaseAt: Int64 = .min, digestID: Int64 = 0) {
        self.notificationID = notificationID
        self.digestReleaseAt = digestReleaseAt
        self.digestID = digestID
    }

    /// The cursor moved past `dispatches` (it never moves back).
    public func advanced(past dispatches: [PushDispatch]) -> DispatchCursor {
        var next = self
        for dispatch in dispatches {
            switch dispatch.item {
            case .notification(let record):
                next.notificationID = max(next.notificationID, record.id)
            case .digest(let digest):
                if (digest.releaseAt, digest.id) > (next.digestReleaseAt, next.digestID) {
                    next.digestReleaseAt = digest.releaseAt
                    next.digestID = digest.id
                }
            }
        }
        return next
    }
}
