import EdgeCrypto
import Glibc

/// Reads stdin to the end with a cap (read(2), EINTR retried): secrets arrive this way, never
/// through argv or the environment (VLT-7).
///
/// Decisions (issue #16):
/// - A read error fails the whole read: `vault put` used to store the bytes read before an EIO
///   as if they were the secret. Partial input is wiped and dropped.
/// - Every buffer that held input is wiped with `SecureWipe` (explicit_bzero), including the
///   smaller buffers left behind when the buffer grows; the returned array is the caller's to wipe.
enum StandardInput {
    static func readAll(max: Int) throws(StandardInputError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: Swift.min(4096, max))
        defer { SecureWipe.wipe(&bytes) }
        var filled = 0
        while true {
            if filled == bytes.count {
                guard bytes.count < max else {
                    throw StandardInputError(.tooLarge, "stdin holds more than \(max - 1) bytes", context: ["max": "\(max - 1)"])
                }
                // Grow by copying into a new buffer and wiping the old one: `+=` would free the
                // old storage unwiped.
                var larger = [UInt8](repeating: 0, count: Swift.min(bytes.count * 2, max))
                larger.withUnsafeMutableBytes { target in
                    bytes.withUnsafeBytes { source in target.copyMemory(from: source) }
                }
                SecureWipe.wipe(&bytes)
                swap(&bytes, &larger)
            }
            let n = bytes.withUnsafeMutableBytes { buf in read(STDIN_FILENO, buf.baseAddress.map { $0 + filled }, buf.count - filled) }
            if n > 0 {
                filled += n
            } else if n == 0 {
                break
            } else if errno != EINTR {
                let code = errno
                throw StandardInputError(.readFailed, "cannot read stdin: \(String(cString: strerror(code)))",
                                         context: ["errno": "\(code)"])
            }
        }
        return Array(bytes[0..<filled])
    }
}
