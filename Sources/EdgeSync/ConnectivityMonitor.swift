import EdgeCore
import Glibc

/// Notices when the station's network changes (SYN-7: a paused sender resumes on a
/// connectivity change): a fingerprint of the interfaces that are up and running and their
/// addresses, from `getifaddrs(3)`, compared with the last one taken.
///
/// Decision: polled by the sender while it is paused (once a second) rather than a netlink
/// subscription; the cost is one syscall and it needs no privileges.
public final class ConnectivityMonitor: Sendable {
    private let last: Locked<[String]>
    private let source: @Sendable () -> [String]

    /// `source` lists what identifies the network (the machine's interfaces by default; a test
    /// passes its own to play a network change).
    public init(source: @escaping @Sendable () -> [String] = ConnectivityMonitor.fingerprint) {
        self.source = source
        last = Locked(source())
    }

    /// True when the fingerprint differs from the one seen at the previous call (or at init).
    public func changed() -> Bool {
        let now = source()
        return last.withLock { last in
            defer { last = now }
            return now != last
        }
    }

    /// "<interface> <address>" for every up, running, non-loopback interface, sorted.
    @Sendable public static func fingerprint() -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var entries: [String] = []
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let current = cursor {
            defer { cursor = current.pointee.ifa_next }
            let flags = Int32(bitPattern: current.pointee.ifa_flags)
            guard flags & Int32(IFF_UP) != 0, flags & Int32(IFF_RUNNING) != 0, flags & Int32(IFF_LOOPBACK) == 0,
                  let name = current.pointee.ifa_name, let address = current.pointee.ifa_addr else { continue }
            let family = Int32(address.pointee.sa_family)
            guard family == AF_INET || family == AF_INET6 else { continue }
            var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            let length = family == AF_INET ? socklen_t(MemoryLayout<sockaddr_in>.size) : socklen_t(MemoryLayout<sockaddr_in6>.size)
            guard getnameinfo(address, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else { continue }
            let numeric = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            entries.append(String(cString: name) + " " + numeric)
        }
        return entries.sorted()
    }
}
