import FoundationEssentials
import Glibc
import Logging
import ServiceLifecycle

/// sd_notify(3) without libsystemd (AGT-3): one datagram to $NOTIFY_SOCKET per state. Outside
/// systemd (no $NOTIFY_SOCKET) every call does nothing.
public struct SystemdNotifier: Sendable {
    public let socketPath: String?

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        socketPath = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Sends `state` ("READY=1", "STOPPING=1", "WATCHDOG=1", "STATUS=..."); returns whether it went.
    @discardableResult
    public func notify(_ state: String) -> Bool {
        guard let socketPath, socketPath.hasPrefix("/") || socketPath.hasPrefix("@") else { return false }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var pathBytes = Array(socketPath.utf8)
        // A leading '@' names the abstract namespace: a NUL byte in the address.
        if pathBytes.first == UInt8(ascii: "@") { pathBytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard pathBytes.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in pathBytes.enumerated() { buffer[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + pathBytes.count)
        let message = Array(state.utf8)
        while true {
            let sent = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sockaddrPointer in
                    message.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), sockaddrPointer, length) }
                }
            }
            if sent >= 0 { return true }
            if errno != EINTR { return false }
        }
    }

    /// Half of $WATCHDOG_USEC when the watchdog is on for this process, else nil.
    public static func watchdogInterval(environment: [String: String] = ProcessInfo.processInfo.environment) -> Duration? {
        guard let text = environment["WATCHDOG_USEC"], let usec = Int64(text), usec > 0 else { return nil }
        if let pid = environment["WATCHDOG_PID"], Int32(pid) != getpid() { return nil }
        return .microseconds(usec / 2)
    }
}

/// Tells systemd the agent is ready once every part has been started, pings the watchdog while
/// the cooperative pool still runs tasks, and says STOPPING=1 at graceful shutdown.
struct SystemdService: Service {
    let notifier: SystemdNotifier
    let watchdog: Duration?

    func run() async throws {
        notifier.notify("READY=1")
        if let watchdog {
            while !Task.isShuttingDownGracefully && !Task.isCancelled {
                notifier.notify("WATCHDOG=1")
                await Task.sleepUnlessShuttingDown(for: watchdog)
            }
        } else {
            try? await gracefulShutdown()
        }
        notifier.notify("STOPPING=1")
    }
}
