import Glibc

/// VLT-9: the one lock that serialises every vault operation across processes: an exclusive
/// flock(2) on `<vault>/lock`, the thin typed seam over open/fstat/flock (EINTR retried, errno
/// turned into a `VaultError`). `edge.service` and `edge-push.service` open the same vault at
/// boot; without it, two first uses each create a device id and a key and one loses the other's
/// secrets.
///
/// Decisions:
/// - Exclusive for reads too: a `get` may create the device id or the first key, and one racing
///   a rotation could read an envelope under a key the rotation destroys a moment later.
///   Vault operations take milliseconds, so a shared mode would buy nothing measurable.
/// - Opened per operation, not held for a `Vault`'s life: a vault directory that is wiped or
///   replaced (restored from a copy) between operations gets a fresh lock file, and a process
///   that waited on the old one notices (the path no longer names the file it locked) and
///   locks the new one.
/// - The lock file is opened non-blocking and must be a regular file this user owns, so a FIFO
///   or someone else's file in its place is refused instead of hanging or being trusted.
enum VaultLock {
    static func path(in directory: String) -> String { directory + "/lock" }

    /// Runs `body` while this process holds the lock of the vault in `directory` (blocking until
    /// it does). A wipe unlinks the lock file inside `body`; processes waiting on it notice and
    /// start over.
    static func holding<T>(directory: String, _ body: () throws(VaultError) -> T) throws(VaultError) -> T {
        let path = path(in: directory)
        let fd = try acquire(directory: directory, path: path)
        defer { _ = close(fd) }  // closing the descriptor releases the flock
        return try body()
    }

    private static func acquire(directory: String, path: String) throws(VaultError) -> Int32 {
        while true {
            // Made (or checked) on every attempt: a wipe removes the directory with the lock.
            try DurableFile.ensurePrivateDirectory(directory)
            let fd = try openLockFile(path)
            do {
                try flockRetrying(fd, path: path)
                if try stillNamed(fd, path: path) { return fd }
            } catch {
                _ = close(fd)
                throw error
            }
            // The file was unlinked (a wipe) while this process waited: lock the new one.
            _ = close(fd)
        }
    }

    private static func openLockFile(_ path: String) throws(VaultError) -> Int32 {
        let fd: Int32
        do {
            fd = try DurableFile.openRetrying(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0o600)
        } catch {
            // A read-only file system (remounted after a disk error, issue #30): the lock file
            // there is locked through a read-only descriptor (flock needs no more), so the secrets
            // stay readable; a write fails on its own, naming the cause.
            guard error.context["errno"] == String(EROFS) else { throw error }
            fd = try DurableFile.openRetrying(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0)
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let error = DurableFile.failure("stat", path)
            _ = close(fd)
            throw error
        }
        guard info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid() else {
            _ = close(fd)
            throw VaultError(.insecureKeyFile, "refusing lock file \(path): not a regular file this user owns", context: ["path": path])
        }
        return fd
    }

    private static func flockRetrying(_ fd: Int32, path: String) throws(VaultError) {
        while flock(fd, LOCK_EX) != 0 {
            if errno != EINTR { throw DurableFile.failure("lock", path) }
        }
    }

    /// Whether `path` still names the file `fd` locked.
    private static func stillNamed(_ fd: Int32, path: String) throws(VaultError) -> Bool {
        var held = stat(), named = stat()
        guard fstat(fd, &held) == 0 else { throw DurableFile.failure("stat", path) }
        guard lstat(path, &named) == 0 else {
            if errno == ENOENT { return false }
            throw DurableFile.failure("stat", path)
        }
        return held.st_dev == named.st_dev && held.st_ino == named.st_ino
    }
}
