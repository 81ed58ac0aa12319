/// The raw calls capture makes and nothing else: open, close, ioctl, mmap, munmap, poll.
///
/// Decision: this is the boundary a host test double replaces (a scripted device that counts
/// its buffers), so everything above it, the EINTR retry and errno mapping in `VideoDevice`
/// included, runs the same against the fake as against a kernel driver. Implementations do no
/// retrying and no interpretation: they report errno as it came.
public protocol VideoDriver: Sendable {
    /// Whether a node is at `path` (a supervisor waits for it to come back before opening).
    func exists(_ path: String) -> Bool
    /// Opens `path` read-write and non-blocking; returns the descriptor.
    func open(_ path: String) throws(SystemErrno) -> Int32
    func close(_ fd: Int32)
    /// One ioctl; `argument` points at the request's struct.
    func ioctl(_ fd: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) throws(SystemErrno)
    /// Maps a driver buffer shared and read-write at `offset`.
    func mmap(_ fd: Int32, length: Int, offset: Int) throws(SystemErrno) -> UnsafeMutableRawPointer
    func munmap(_ address: UnsafeMutableRawPointer, length: Int)
    /// Waits for the descriptor to become readable; returns the `revents` bits, or 0 on timeout.
    func poll(_ fd: Int32, timeoutMilliseconds: Int32) throws(SystemErrno) -> Int16
}
