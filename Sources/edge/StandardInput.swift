import Glibc

/// Reads stdin to the end with a cap (read(2), EINTR retried): secrets arrive this way, never
/// through argv or the environment (VLT-7).
enum StandardInput {
    struct TooLarge: Error, CustomStringConvertible {
        let max: Int
        var description: String { "stdin holds more than \(max - 1) bytes" }
    }

    static func readAll(max: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 4096)
        var filled = 0
        while true {
            if filled == bytes.count {
                guard bytes.count < max else {
                    Output.stderr("edge: stdin holds more than \(max - 1) bytes")
                    throw TooLarge(max: max)
                }
                bytes += [UInt8](repeating: 0, count: min(bytes.count, max - bytes.count))
            }
            let n = bytes.withUnsafeMutableBytes { buf in read(STDIN_FILENO, buf.baseAddress.map { $0 + filled }, buf.count - filled) }
            if n > 0 { filled += n } else if n == 0 { break } else if errno != EINTR { break }
        }
        let out = Array(bytes[0..<filled])
        for i in bytes.indices { bytes[i] = 0 }
        return out
    }
}
