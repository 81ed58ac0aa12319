import Glibc

/// The `convert` tool, for optional cross-checks against an independent writer.
enum ImageMagick {
    static let isAvailable: Bool = {
        guard access("/usr/bin/convert", X_OK) == 0, let pipe = popen("/usr/bin/convert -version 2>/dev/null", "r") else { return false }
        defer { pclose(pipe) }
        var buffer = [CChar](repeating: 0, count: 256)
        guard fgets(&buffer, Int32(buffer.count), pipe) != nil else { return false }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).contains("ImageMagick")
    }()

    struct Failed: Error { let command: String }

    static func run(_ arguments: String) throws {
        let command = "/usr/bin/convert \(arguments) 2>/dev/null"
        guard system(command) == 0 else { throw Failed(command: command) }
    }
}
