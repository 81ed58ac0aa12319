import Glibc

/// One sender per database at a time: an exclusive `flock` on `<database>.sender-lock`.
///
/// Holding it means any lease left in the outbox belongs to a sender that died (the kernel drops
/// the lock with the process), so leases use one fixed owner name and a restarted sender takes
/// its entries back at once instead of waiting for the leases to expire.
public final class SenderLock: Sendable {
    public let path: String
    private let descriptor: Int32

    /// Takes the lock without waiting; throws `.senderBusy` if another process holds it.
    public init(databasePath: String) throws(SyncError) {
        path = databasePath + ".sender-lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            throw SyncError(.storeFailure, "Could not open the sender lock \(path): \(reason).", context: ["path": path])
        }
        var result: Int32
        repeat { result = flock(fd, LOCK_EX | LOCK_NB) } while result != 0 && errno == EINTR
        guard result == 0 else {
            let busy = errno == EWOULDBLOCK
            close(fd)
            if busy {
                throw SyncError(.senderBusy, "Another edge process (the agent, or another `edge sync run`) is sending from this database.",
                                context: ["path": path])
            }
            throw SyncError(.storeFailure, "Could not lock \(path).", context: ["path": path])
        }
        descriptor = fd
    }

    deinit {
        close(descriptor)
    }
}
