import Glibc

/// A pthread of edge's own, named (`/proc/PID/task/TID/comm`, at most 15 bytes) so that a count of
/// threads can be read by name: `top -H`, `ps -L`, the soak's report (issue #30 item 5).
///
/// Work that blocks for long (a camera's capture loop, curl's multi loop) or that must not share
/// libdispatch's pools (`StationExecutor`) runs on one of these: libdispatch adds a worker when
/// its busy ones block and keeps it while work keeps coming, so its pools grow with the load's
/// bursts instead of staying the size the station needs.
public struct NamedThread: Sendable {
    /// Why a thread could not start: `pthread_create`'s error (EAGAIN: the process or user is out
    /// of threads or memory for a stack).
    public typealias StartError = CodedError<StartErrorCode>
    public enum StartErrorCode: String, Sendable, Hashable { case threadsExhausted }

    // pthread_t is an integer on Linux.
    private let handle: pthread_t

    /// Starts `body` on a new thread named `name` (cut to 15 bytes). The caller either `join`s
    /// it or `detach`es it, once.
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) throws(StartError) -> NamedThread {
        let start = Start(name: String(decoding: name.utf8.prefix(15), as: UTF8.self), body: body)
        let retained = Unmanaged.passRetained(start).toOpaque()
        var handle = pthread_t()
        let result = pthread_create(&handle, nil, { argument in
            guard let argument else { return nil }
            let start = Unmanaged<Start>.fromOpaque(argument).takeRetainedValue()
            // Named by the thread itself (a new thread inherits its creator's name until then),
            // through /proc: glibc declares pthread_setname_np only under _GNU_SOURCE, which
            // Swift's Glibc module does not set, and prctl is variadic.
            let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
            if fd >= 0 {
                _ = start.name.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count - 1) }
                close(fd)
            }
            start.body()
            return nil
        }, retained)
        guard result == 0 else {
            Unmanaged<Start>.fromOpaque(retained).release()
            throw StartError(.threadsExhausted, "edge could not start its \(name) thread; the system is out of threads or memory.",
                             context: ["function": "pthread_create", "errno": "\(result)", "thread": name])
        }
        return NamedThread(handle: handle)
    }

    /// Waits for the thread to end.
    public func join() { pthread_join(handle, nil) }

    /// Lets the thread's resources go when it ends, with nobody waiting for it.
    public func detach() { pthread_detach(handle) }

    private final class Start: Sendable {
        let name: String
        let body: @Sendable () -> Void
        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }
}
