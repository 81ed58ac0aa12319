#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a whole file with a size cap: the POSIX seam of the loader (`open`, `fstat`, `read`,
/// `close`), turning `errno` into `ImageError`s that name the file.
enum ImageFile {
    /// Growth step for files whose size `fstat` does not tell (pipes, /proc).
    private static let chunk = 1 << 16

    static func readAll(path: String, maxBytes: Int) throws(ImageError) -> [UInt8] {
        let fd = try openReadOnly(path)
        defer { _ = close(fd) }

        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure(errno, doing: "stat", path: path) }
        let kind = info.st_mode & S_IFMT
        if kind == S_IFDIR {
            throw ImageError(.unreadableFile, path: path, reason: "is a directory, not an image file")
        }
        let statSize = kind == S_IFREG ? Int(info.st_size) : 0
        if statSize > maxBytes {
            throw tooLarge(statSize, maxBytes: maxBytes, path: path)
        }

        // One spare byte: reading it means the file grew after fstat, which the loop handles.
        var bytes = [UInt8](repeating: 0, count: statSize > 0 ? statSize + 1 : chunk)
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
    private static func openReadOnly(_ path: String) throws(ImageError) -> Int32 {
        while true {
            let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)
            if fd >= 0 { return fd }
            let code = errno
            if code != EINTR { throw failure(code, doing: "open", path: path) }
        }
    }

    private static func tooLarge(_ size: Int, maxBytes: Int, path: String) -> ImageError {
        ImageError(.tooLarge, path: path, reason: "file is larger than the \(maxBytes)-byte limit (\(size) bytes or more)")
    }

    private static func failure(_ code: Int32, doing action: String, path: String) -> ImageError {
        switch code {
        case ENOENT:
            return ImageError(.notFound, path: path, reason: "no such file")
        case ENOTDIR:
            return ImageError(.notFound, path: path, reason: "no such file (a path component is not a directory)")
        case EISDIR:
            return ImageError(.unreadableFile, path: path, reason: "is a directory, not an image file")
        default:
            return ImageError(.unreadableFile, path: path, reason: "cannot \(action): \(describe(errno: code))")
        }
    }

    static func describe(errno code: Int32) -> String {
        // strerror returns a pointer to a static, immutable table entry for known codes.
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text)
    }
}
