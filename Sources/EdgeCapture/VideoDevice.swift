import Glibc

/// An open V4L2 device node and the one seam every call to it goes through: each call retries
/// EINTR and turns errno into a typed `CaptureError` naming the device and the request.
///
/// Not thread-safe: one capture task owns a device. Closing is idempotent and also happens on
/// deinit, so an error path can never leak the descriptor.
public final class VideoDevice {
    public let path: String
    let driver: any VideoDriver
    private var fd: Int32

    /// Opens `path`; `.notFound`, `.permissionDenied`, `.busy` or `.deviceGone` when it cannot.
    public init(path: String, driver: any VideoDriver = LibV4L2Driver()) throws(CaptureError) {
        self.path = path
        self.driver = driver
        var descriptor: Int32 = -1
        while true {
            do {
                descriptor = try driver.open(path)
                break
            } catch where error.code == EINTR {
                continue
            } catch {
                throw Self.error(error.code, call: "open", path: path)
            }
        }
        fd = descriptor
    }

    deinit { close() }

    public var isOpen: Bool { fd >= 0 }

    public func close() {
        guard fd >= 0 else { return }
        driver.close(fd)
        fd = -1
    }

    /// One ioctl with `value` as its argument struct.
    public func ioctl<T>(_ request: V4L2Request, _ value: inout T) throws(CaptureError) {
        do {
            try perform(request, &value)
        } catch {
            throw Self.error(error.code, call: request.name, path: path)
        }
    }

    /// Like `ioctl`, but EAGAIN (nothing ready on a non-blocking descriptor) returns false.
    public func ioctlUnlessWouldBlock<T>(_ request: V4L2Request, _ value: inout T) throws(CaptureError) -> Bool {
        do {
            try perform(request, &value)
            return true
        } catch where error.code == EAGAIN {
            return false
        } catch {
            throw Self.error(error.code, call: request.name, path: path)
        }
    }

    private func perform<T>(_ request: V4L2Request, _ value: inout T) throws(SystemErrno) {
        guard fd >= 0 else { throw SystemErrno(ENODEV) }
        while true {
            do {
                try withUnsafeMutablePointer(to: &value) { (pointer) throws(SystemErrno) in
                    try driver.ioctl(fd, request.number, UnsafeMutableRawPointer(pointer))
                }
                return
            } catch where error.code == EINTR {
                continue
            }
        }
    }

    /// Waits up to `timeout` for a frame to be ready. Returns false on timeout. POLLERR/POLLHUP
    /// count as ready: the next DQBUF then reports why (ENODEV for a vanished device).
    public func waitReadable(timeout: Duration) throws(CaptureError) -> Bool {
        guard fd >= 0 else { throw CaptureError(.deviceGone, "\(path) is closed", context: ["path": path, "call": "poll"]) }
        let milliseconds = Int32(clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        while true {
            do {
                return try driver.poll(fd, timeoutMilliseconds: milliseconds) != 0
            } catch where error.code == EINTR {
                // Decision: a signal restarts the whole wait; a signal storm delays, never fails.
                continue
            } catch {
                throw Self.error(error.code, call: "poll", path: path)
            }
        }
    }

    /// Maps one driver buffer.
    public func map(length: Int, offset: Int) throws(CaptureError) -> UnsafeMutableRawBufferPointer {
        guard fd >= 0 else { throw CaptureError(.deviceGone, "\(path) is closed", context: ["path": path, "call": "mmap"]) }
        while true {
            do {
                let address = try driver.mmap(fd, length: length, offset: offset)
                return UnsafeMutableRawBufferPointer(start: address, count: length)
            } catch where error.code == EINTR {
                continue
            } catch {
                throw Self.error(error.code, call: "mmap", path: path)
            }
        }
    }

    public func unmap(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress else { return }
        driver.munmap(base, length: buffer.count)
    }

    /// errno → code. Decision: EIO counts as the device going away, not as a transient error:
    /// USB cameras report an unplug mid-transfer as EIO before the node disappears (HW-3).
    static func error(_ number: Int32, call: String, path: String) -> CaptureError {
        let context = ["path": path, "call": call, "errno": "\(number)", "reason": String(cString: strerror(number))]
        switch number {
        case ENOENT:
            return CaptureError(.notFound, "\(path) does not exist", context: context)
        case EACCES, EPERM:
            return CaptureError(.permissionDenied, "no permission to open \(path) (is the user in the video group?)", context: context)
        case EBUSY:
            return CaptureError(.busy, "\(path) is busy (another program is capturing from it)", context: context)
        case ENODEV, ENXIO, EIO, ESHUTDOWN:
            return CaptureError(.deviceGone, "\(path) went away (\(call))", context: context)
        case EINVAL, ENOTTY:
            return CaptureError(.unsupported, "\(path) does not support \(call)", context: context)
        case ENOMEM:
            return CaptureError(.systemError, "\(path): out of memory in \(call)", context: context)
        default:
            return CaptureError(.systemError, "\(path): \(call) failed: \(String(cString: strerror(number)))", context: context)
        }
    }
}
