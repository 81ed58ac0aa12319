import EdgeCore
import Glibc

/// The vault's file operations over EdgeCore's `PosixFile` seam, with errno turned into a
/// `VaultError` naming the file. Reads and writes are the seam's; writes are atomic and durable
/// (VLT-3): temp file in the same directory (mode 0600), write, fsync, rename over the target,
/// fsync the directory. What only the vault does (crypto-erase, private directories, stale
/// temporaries) stays here.
enum DurableFile {
    /// Reads a whole vault file: regular files only (a FIFO in its place is refused instead of
    /// blocking), never through a symbolic link, at most `maxBytes`.
    static func read(_ path: String, maxBytes: Int) throws(VaultError) -> [UInt8] {
        do {
            return try PosixFile.readAll(path: path, maxBytes: maxBytes, allowSpecial: false, followLinks: false)
        } catch {
            switch error.code {
            case .notFound: throw VaultError(.notFound, "\(path) does not exist", context: ["path": path])
            case .tooLarge: throw VaultError(.tooLarge, "\(path) is larger than \(maxBytes) bytes", context: ["path": path])
            case .isDirectory, .notRegular: throw VaultError(.notRegularFile, error.message, context: error.context)
            case .storage: throw VaultError(.storage, error.message, context: error.context)
            case .failed: throw VaultError(.io, error.message, context: error.context)
            }
        }
    }

    /// Replaces `path` with `bytes` atomically and durably (EdgeCore's one POSIX file seam);
    /// `mode` applies to the new file.
    static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o600) throws(VaultError) {
        var suffix = ""
        for b in (try? VaultRandom.bytes(6)) ?? [] { suffix += String(b, radix: 16) }
        do {
            try PosixFile.writeAtomically(bytes, to: path, mode: mode, durable: true, suffix: suffix)
        } catch {
            // The temporary is removed and nothing was renamed: the secret there before is intact.
            throw VaultError(error.code == .storage ? .storage : .io, error.message, context: error.context)
        }
    }

    /// Crypto-erase of a file: overwrite its bytes with random ones, fsync, unlink, fsync the
    /// directory. (On copy-on-write or wear-levelled storage the overwrite is best effort; what
    /// makes the secrets unrecoverable is that the key is gone from every place the vault
    /// controls.) Anything but a regular file (a FIFO or symlink put in place of a key) is only
    /// unlinked, never opened for writing, so it cannot block; a missing file is not an error.
    static func destroy(_ path: String) throws(VaultError) {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return }
            throw failure("stat", path)
        }
        if info.st_mode & S_IFMT == S_IFREG && info.st_size > 0 { try overwrite(path) }
        try remove(path)
    }

    /// Overwrites a regular file in place. Key files are 0400 and the units run edge
    /// unprivileged (issue #16: opening them write-only failed with EACCES, which was ignored):
    /// the file is opened read-only (the owner may), made owner-writable through that descriptor
    /// (fchmod needs ownership, not write permission), reopened for writing and checked to be
    /// the same inode, so a file swapped in between is never written.
    private static func overwrite(_ path: String) throws(VaultError) {
        let reader = try openRetrying(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0)
        defer { _ = close(reader) }
        var before = stat()
        guard fstat(reader, &before) == 0 else { throw failure("stat", path) }
        guard before.st_mode & S_IFMT == S_IFREG else { return }
        if before.st_mode & S_IWUSR == 0 {
            guard fchmod(reader, (before.st_mode & 0o777) | S_IWUSR) == 0 else { throw failure("make writable", path) }
        }
        let fd = try openRetrying(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0)
        defer { _ = close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure("stat", path) }
        guard info.st_dev == before.st_dev, info.st_ino == before.st_ino else {
            throw VaultError(.io, "\(path) was replaced while it was being erased", context: ["path": path])
        }
        let noise = try VaultRandom.bytes(Int(info.st_size))
        var written = 0
        while written < noise.count {
            let n = noise.withUnsafeBytes { buf in pwrite(fd, buf.baseAddress.map { $0 + written }, buf.count - written, off_t(written)) }
            if n > 0 { written += n } else if n < 0 && errno == EINTR { continue } else { throw failure("overwrite", path) }
        }
        do { try PosixFile.fsyncRetrying(fd, path: path) } catch { throw VaultError(error.code == .storage ? .storage : .io, error.message, context: error.context) }
    }

    static func remove(_ path: String) throws(VaultError) {
        guard unlink(path) == 0 || errno == ENOENT else { throw failure("remove", path) }
        try syncDirectory(directory(of: path))
    }

    /// Creates `path` as a directory with mode 0700 if missing; refuses an existing one that is
    /// not a directory, belongs to someone else, or is open to group/others.
    static func ensurePrivateDirectory(_ path: String) throws(VaultError) {
        if mkdir(path, 0o700) != 0 && errno != EEXIST { throw failure("create directory", path) }
        var info = stat()
        guard lstat(path, &info) == 0 else { throw failure("stat", path) }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw VaultError(.insecureKeyFile, "\(path) is not a directory", context: ["path": path])
        }
        guard info.st_uid == geteuid() else {
            throw VaultError(.insecureKeyFile, "\(path) belongs to another user", context: ["path": path])
        }
        guard info.st_mode & 0o077 == 0 else {
            throw VaultError(.insecureKeyFile, "\(path) is open to other users (mode \(String(info.st_mode & 0o777, radix: 8)); expected 700)",
                             context: ["path": path])
        }
    }

    static func list(_ dir: String) throws(VaultError) -> [String] {
        guard let d = opendir(dir) else {
            if errno == ENOENT { return [] }
            throw failure("list", dir)
        }
        defer { closedir(d) }
        var names: [String] = []
        while let entry = readdir(d) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { p in
                p.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// Removes temp files (`<name>.tmp-<pid>-<random>`) left by a writer that died before its
    /// rename: they hold only ciphertext, but they are clutter. A live writer's file is kept.
    static func removeStaleTemporaries(in dir: String) throws(VaultError) {
        for name in try list(dir) {
            let parts = name.split(separator: ".tmp-", maxSplits: 1)
            guard parts.count == 2, let pidText = parts[1].split(separator: "-").first else { continue }
            guard let pid = Int32(pidText), pid > 0 else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { try remove(dir + "/" + name) }
        }
    }

    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    static func directory(of path: String) -> String { PosixFile.directoryName(path) }

    private static func syncDirectory(_ dir: String) throws(VaultError) {
        do {
            try PosixFile.syncDirectory(of: dir + "/.")
        } catch {
            throw VaultError(error.code == .storage ? .storage : .io, error.message, context: error.context)
        }
    }

    static func openRetrying(_ path: String, _ flags: Int32, _ mode: mode_t) throws(VaultError) -> Int32 {
        while true {
            let fd = open(path, flags, mode)
            if fd >= 0 { return fd }
            if errno == EINTR { continue }
            if errno == ENOENT { throw VaultError(.notFound, "\(path) does not exist", context: ["path": path]) }
            throw failure("open", path)
        }
    }

    static func failure(_ doing: String, _ path: String) -> VaultError {
        let code = errno
        let error = PosixFile.failure(code, doing: doing, path: path)
        if error.code == .storage { return VaultError(.storage, error.message, context: error.context) }
        let reason = String(cString: strerror(code))
        return VaultError(.io, "cannot \(doing) \(path): \(reason)", context: ["path": path, "errno": String(code)])
    }
}
