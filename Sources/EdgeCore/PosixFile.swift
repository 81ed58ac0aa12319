import Glibc

/// The project's POSIX file seam (`open`, `fstat`, `read`, `write`, `fsync`, `rename`, `close`):
/// EINTR retried, `errno` turned into a `PosixFileError` that names the file.
/// - `readAll`: whole files with a size cap. Images, the station configuration and other
///   untrusted inputs are read through it, so none is read unbounded and a FIFO or device in
///   place of a file is refused instead of blocking.
/// - `writeAtomically`: temporary file in the same directory, write, (fsync), rename over the
///   target, (fsync the directory): readers see the old or the new file, never a part. The vault
///   writes through it durably; the agent's status file without the fsyncs.
public enum PosixFile {
    /// Growth step for files whose size `fstat` does not tell (/proc).
    private static let chunk = 1 << 16

    /// Reads `path` whole. `allowSpecial` lets pipes and character devices through (an image
    /// piped in on /dev/stdin); otherwise only regular files are read.
    /// `followLinks: false` refuses a symbolic link in place of the file (the vault's files).
    public static func readAll(path: String, maxBytes: Int, allowSpecial: Bool = true, followLinks: Bool = true) throws(PosixFileError) -> [UInt8] {
        let fd = try openReadOnly(path, nonBlocking: !allowSpecial, followLinks: followLinks)
        defer { _ = close(fd) }

        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure(errno, doing: "stat", path: path) }
        let kind = info.st_mode & S_IFMT
        if kind == S_IFDIR {
            throw PosixFileError(.isDirectory, "\(path) is a directory, not a file", context: ["path": path])
        }
        if !allowSpecial && kind != S_IFREG {
            throw PosixFileError(.notRegular, "\(path) is not a regular file", context: ["path": path])
        }
        let statSize = kind == S_IFREG ? Int(info.st_size) : 0
        if statSize > maxBytes {
            throw tooLarge(statSize, maxBytes: maxBytes, path: path)
        }

        // One spare byte: reading it means the file grew after fstat, which the loop handles.
        var bytes = [UInt8](repeating: 0, count: statSize > 0 ? statSize + 1 : min(chunk, maxBytes + 1))
        var filled = 0
        while true {
            if filled == bytes.count {
                guard filled <= maxBytes else { throw tooLarge(filled, maxBytes: maxBytes, path: path) }
                bytes.append(contentsOf: repeatElement(0, count: min(bytes.count, maxBytes + 1 - filled)))
            }
            let n = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return read(fd, base + filled, buffer.count - filled)
            }
            if n > 0 {
                filled += n
            } else if n == 0 {
                break
            } else if errno != EINTR {
                throw failure(errno, doing: "read", path: path)
            }
        }
        guard filled <= maxBytes else { throw tooLarge(filled, maxBytes: maxBytes, path: path) }
        bytes.removeLast(bytes.count - filled)
        return bytes
    }

    /// Replaces `path` with `bytes` atomically; with `durable`, also across a power loss. The
    /// temporary file is `<path>.tmp-<pid>-<suffix>` (created exclusively, never followed if a
    /// link), so writers in several processes never share one.
    public static func writeAtomically(_ bytes: [UInt8], to path: String, mode: mode_t = 0o600, durable: Bool = true,
                                       suffix: String = "") throws(PosixFileError) {
        let temporary = "\(path).tmp-\(getpid())-\(suffix)"
        // Failures on the temporary name the file being written: that is the one the operator
        // knows (a full disk says so once, for the file that could not be written).
        let fd: Int32
        do {
            fd = try openRetrying(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
        } catch {
            if error.code == .notFound, let missing = StorageProblem.diagnose(errno: ENOENT, path: path) {
                throw PosixFileError(.notFound, "cannot write \(path): \(missing.words)", context: missing.context.merging(["path": path]) { $1 })
            }
            throw failure(error.errno ?? EIO, doing: "write", path: path)
        }
        var renamed = false
        defer {
            _ = close(fd)
            if !renamed { _ = unlink(temporary) }
        }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { buffer in write(fd, buffer.baseAddress.map { $0 + written }, buffer.count - written) }
            if n > 0 { written += n } else if n < 0 && errno == EINTR { continue } else { throw failure(errno, doing: "write", path: path) }
        }
        guard fchmod(fd, mode) == 0 else { throw failure(errno, doing: "chmod", path: path) }
        if durable {
            while fsync(fd) != 0 {
                if errno != EINTR { throw failure(errno, doing: "write", path: path) }
            }
        }
        guard rename(temporary, path) == 0 else { throw failure(errno, doing: "rename", path: path) }
        renamed = true
        if durable { try syncDirectory(of: path) }
    }

    /// fsync of the directory holding `path`, so a rename or unlink in it survives a power loss.
    public static func syncDirectory(of path: String) throws(PosixFileError) {
        let directory = directoryName(path)
        let fd = try openRetrying(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)
        defer { _ = close(fd) }
        try fsyncRetrying(fd, path: directory)
    }

    public static func fsyncRetrying(_ fd: Int32, path: String) throws(PosixFileError) {
        while fsync(fd) != 0 {
            if errno != EINTR { throw failure(errno, doing: "fsync", path: path) }
        }
    }

    /// `open(2)` retried on EINTR.
    public static func openRetrying(_ path: String, _ flags: Int32, _ mode: mode_t) throws(PosixFileError) -> Int32 {
        while true {
            let fd = open(path, flags, mode)
            if fd >= 0 { return fd }
            if errno != EINTR { throw failure(errno, doing: "open", path: path) }
        }
    }

    /// The directory part of `path` ("." when there is none).
    public static func directoryName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// `open(2)` read-only, close-on-exec, retried on EINTR (possible when opening a FIFO).
    /// Non-blocking when only regular files are wanted, so a FIFO cannot hold the open.
    private static func openReadOnly(_ path: String, nonBlocking: Bool, followLinks: Bool) throws(PosixFileError) -> Int32 {
        while true {
            let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | (nonBlocking ? O_NONBLOCK : 0) | (followLinks ? 0 : O_NOFOLLOW))
            if fd >= 0 { return fd }
            let code = errno
            if code != EINTR { throw failure(code, doing: "open", path: path) }
        }
    }

    private static func tooLarge(_ size: Int, maxBytes: Int, path: String) -> PosixFileError {
        PosixFileError(.tooLarge, "\(path) is larger than the \(maxBytes)-byte limit (\(size) bytes or more)",
                       context: ["path": path, "limit": String(maxBytes)])
    }

    /// The error for `errno` `code` from `action` on `path`. A disk that is full, read-only, over
    /// quota or failing is named with the cause in words (`StorageProblem`, issue #30 item 1).
    public static func failure(_ code: Int32, doing action: String, path: String) -> PosixFileError {
        switch code {
        case ENOENT, ENOTDIR:
            return PosixFileError(.notFound, "\(path): no such file", context: ["path": path, "errno": String(code)])
        case EISDIR:
            return PosixFileError(.isDirectory, "\(path) is a directory, not a file", context: ["path": path])
        case ENOSPC, EDQUOT, EROFS, EIO:
            if let problem = StorageProblem.diagnose(errno: code, path: path) {
                var context = problem.context
                context["path"] = path
                context["errno"] = String(code)
                context["reason"] = "cannot \(action): \(problem.words)"
                return PosixFileError(.storage, "cannot \(action) \(path): \(problem.words)", context: context)
            }
            return PosixFileError(.failed, "\(path): cannot \(action): \(describe(errno: code))",
                                  context: ["path": path, "errno": String(code), "reason": "cannot \(action): \(describe(errno: code))"])
        default:
            return PosixFileError(.failed, "\(path): cannot \(action): \(describe(errno: code))",
                                  context: ["path": path, "errno": String(code), "reason": "cannot \(action): \(describe(errno: code))"])
        }
    }

    public static func describe(errno code: Int32) -> String {
        // strerror returns a pointer to a static, immutable table entry for known codes.
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text)
    }
}

public typealias PosixFileError = CodedError<PosixFileErrorCode>

public enum PosixFileErrorCode: String, Sendable, Hashable {
    case notFound = "not-found"
    case isDirectory = "is-directory"
    case notRegular = "not-regular"
    case tooLarge = "too-large"
    /// The disk refused: full, out of inodes or quota, read-only, or an I/O error; the message
    /// and `context["cause"]` say which (`StorageProblem`).
    case storage
    case failed
}

extension CodedError where Code == PosixFileErrorCode {
    /// The errno behind it, when one is known.
    public var errno: Int32? { context["errno"].flatMap { Int32($0) } }
}
