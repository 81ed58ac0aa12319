import CV4L2
import Glibc

/// `VideoDriver` over libv4l2 (HW-2): its `v4l2_*` calls convert MJPEG and vendor formats in
/// user space and otherwise pass straight through to the kernel.
public struct LibV4L2Driver: VideoDriver {
    public init() {}

    public func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    public func open(_ path: String) throws(SystemErrno) -> Int32 {
        // O_NONBLOCK: DQBUF must never block; `VideoDevice` waits in poll with a timeout, so a
        // device that vanishes mid-wait cannot hang the capture thread.
        let fd = edge_v4l2_open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 { throw SystemErrno(errno) }
        return fd
    }

    public func close(_ fd: Int32) { _ = v4l2_close(fd) }

    public func ioctl(_ fd: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) throws(SystemErrno) {
        if edge_v4l2_ioctl(fd, request, argument) < 0 { throw SystemErrno(errno) }
    }

    public func mmap(_ fd: Int32, length: Int, offset: Int) throws(SystemErrno) -> UnsafeMutableRawPointer {
        guard let address = v4l2_mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, Int64(offset)),
              address != MAP_FAILED else {
            throw SystemErrno(errno)
        }
        return address
    }

    public func munmap(_ address: UnsafeMutableRawPointer, length: Int) { _ = v4l2_munmap(address, length) }

    public func poll(_ fd: Int32, timeoutMilliseconds: Int32) throws(SystemErrno) -> Int16 {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let n = Glibc.poll(&entry, 1, timeoutMilliseconds)
        if n < 0 { throw SystemErrno(errno) }
        return n == 0 ? 0 : entry.revents
    }
}
