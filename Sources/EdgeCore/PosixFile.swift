import Glibc

/// The POSIX seam for reading whole files with a size cap (`open`, `fstat`, `read`, `close`):
/// EINTR retried, `errno` turned into a `PosixFileError` that names the file. Images, the station
/// configuration and other untrusted inputs are read through it, so none is read unbounded and a
/// FIFO or device in place of a file is refused instead of blocking.
public enum PosixFile {
    /// Growth step for files whose size `fstat` does not tell (/proc).
    private static let chunk = 1 << 16

    /// Reads `path` whole. `allowSpecial` lets pipes and character devices through (an image
    /// piped in on /dev/stdin); otherwise only regular files are read.
    public static func readAll(path: String, maxBytes: Int, allowSpecial: Bool = true) throws(PosixFileError) -> [UInt8] {
        let fd = try openReadOnly(path, nonBlocking: !allowSpecial)
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

    /// `open(2)` read-only, close-on-exec, retried on EINTR (possible when opening a FIFO).
    /// Non-blocking when only regular files are wanted, so a FIFO cannot hold the open.
    private static func openReadOnly(_ path: String, nonBlocking: Bool) throws(PosixFileError) -> Int32 {
        while true {
            let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | (nonBlocking ? O_NONBLOCK : 0))
            if fd >= 0 { return fd }
            let code = errno
            if code != EINTR { throw failure(code, doing: "open", path: path) }
        }
    }

    private static func tooLarge(_ size: Int, maxBytes: Int, path: String) -> PosixFileError {
        PosixFileError(.tooLarge, "\(path) is larger than the \(maxBytes)-byte limit (\(size) bytes or more)",
                       context: ["path": path, "limit": String(maxBytes)])
    }

    private static func failure(_ code: Int32, doing action: String, path: String) -> PosixFileError {
        switch code {
        case ENOENT, ENOTDIR:
            return PosixFileError(.notFound, "\(path): no such file", context: ["path": path])
        case EISDIR:
            return PosixFileError(.isDirectory, "\(path) is a directory, not a file", context: ["path": path])
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
    case failed
}
