import Glibc

/// A Unix datagram socket standing in for systemd's NOTIFY_SOCKET: a test reads what the agent
/// told systemd (READY=1, STOPPING=1), in the order it was sent.
public final class NotifySocket: @unchecked Sendable {
    // @unchecked: `fd` is written once in init; recv on a datagram socket is thread-safe.
    public let path: String
    private let fd: Int32

    public init(path: String) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw SetupFailure("socket(AF_UNIX, SOCK_DGRAM) failed: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(fd)
            throw SetupFailure("socket path too long: \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in bytes.enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else {
            close(fd)
            throw SetupFailure("bind(\(path)) failed: errno \(errno)")
        }
    }

    deinit { close(fd) }

    /// Every datagram that arrived since the last call, without waiting.
    public func received() -> [String] {
        var out: [String] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while true {
            let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return out }
            out.append(String(decoding: buffer[0..<count], as: UTF8.self))
        }
    }
}
