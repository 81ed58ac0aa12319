import CV4L2
import EdgeCapture
import Foundation
import Glibc

/// A scripted V4L2 capture device behind the `VideoDriver` seam: one node, one format, mmap
/// buffers it fills with a known pattern. It counts descriptors and mappings so tests can see
/// leaks, and can inject EINTR and make the device vanish.
final class FakeVideoDriver: VideoDriver, @unchecked Sendable {
    struct Buffer {
        var memory: UnsafeMutableRawPointer
        var length: Int
        var queued = false
    }

    private let lock = NSLock()
    let path: String
    let format: PixelFormat
    let width: Int
    let height: Int
    private var buffers: [Buffer] = []
    private var queue: [Int] = []
    private var streaming = false
    private var sequence: UInt32 = 0
    private(set) var openDescriptors = 0
    private(set) var liveMappings = 0
    /// While true the node is absent and every call on an open descriptor fails with ENODEV.
    /// Set from any thread (a test plays udev); read under the lock.
    var gone: Bool {
        get { lock.withLock { isGone } }
        set { lock.withLock { isGone = newValue; if newValue { streaming = false } } }
    }
    private var isGone = false
    /// The next this-many ioctls fail with EINTR first.
    var pendingInterrupts = 0
    private(set) var ioctlCount = 0

    init(path: String = "/dev/fake0", format: PixelFormat = .yuyv, width: Int = 640, height: Int = 480) {
        self.path = path
        self.format = format
        self.width = width
        self.height = height
    }

    deinit { for b in buffers { b.memory.deallocate() } }

    var bytesPerLine: Int { format == .yuyv ? width * 2 : width }
    var imageSize: Int { format == .nv12 ? width * height * 3 / 2 : bytesPerLine * height }

    func exists(_ path: String) -> Bool { lock.withLock { path == self.path && !isGone } }

    func open(_ path: String) throws(SystemErrno) -> Int32 {
        lock.lock()
        defer { lock.unlock() }
        guard path == self.path, !isGone else { throw SystemErrno(ENOENT) }
        openDescriptors += 1
        return 42
    }

    func close(_ fd: Int32) {
        lock.withLock {
            openDescriptors -= 1
            streaming = false
            queue.removeAll()
        }
    }

    func mmap(_ fd: Int32, length: Int, offset: Int) throws(SystemErrno) -> UnsafeMutableRawPointer {
        lock.lock()
        defer { lock.unlock() }
        let index = offset / 4096
        guard index < buffers.count, length == buffers[index].length else { throw SystemErrno(EINVAL) }
        liveMappings += 1
        return buffers[index].memory
    }

    func munmap(_ address: UnsafeMutableRawPointer, length: Int) { lock.withLock { liveMappings -= 1 } }

    func poll(_ fd: Int32, timeoutMilliseconds: Int32) throws(SystemErrno) -> Int16 {
        lock.withLock {
            if isGone { return Int16(POLLERR | POLLHUP) }
            return streaming && !queue.isEmpty ? Int16(POLLIN) : 0
        }
    }

    func ioctl(_ fd: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) throws(SystemErrno) {
        lock.lock()
        defer { lock.unlock() }
        ioctlCount += 1
        if pendingInterrupts > 0 {
            pendingInterrupts -= 1
            throw SystemErrno(EINTR)
        }
        if isGone { throw SystemErrno(ENODEV) }
        try handle(request, argument)
    }

    private func handle(_ request: UInt, _ argument: UnsafeMutableRawPointer) throws(SystemErrno) {
        switch request {
        case V4L2Request.queryCapability.number:
            let cap = argument.assumingMemoryBound(to: v4l2_capability.self)
            cap.pointee = v4l2_capability()
            Self.copy("fake", into: &cap.pointee.driver)
            Self.copy("Fake Camera", into: &cap.pointee.card)
            Self.copy("fake:0", into: &cap.pointee.bus_info)
            cap.pointee.capabilities = UInt32(V4L2_CAP_VIDEO_CAPTURE) | UInt32(V4L2_CAP_STREAMING)
        case V4L2Request.enumerateFormat.number:
            let desc = argument.assumingMemoryBound(to: v4l2_fmtdesc.self)
            guard desc.pointee.index == 0 else { throw SystemErrno(EINVAL) }
            desc.pointee.pixelformat = format.fourcc
        case V4L2Request.enumerateFrameSizes.number:
            let size = argument.assumingMemoryBound(to: v4l2_frmsizeenum.self)
            guard size.pointee.index == 0 else { throw SystemErrno(EINVAL) }
            size.pointee.type = V4L2_FRMSIZE_TYPE_DISCRETE.rawValue
            size.pointee.discrete.width = UInt32(width)
            size.pointee.discrete.height = UInt32(height)
        case V4L2Request.setFormat.number, V4L2Request.getFormat.number:
            // Like a real driver: whatever was asked, the answer is what the device can do.
            let f = argument.assumingMemoryBound(to: v4l2_format.self)
            f.pointee.fmt.pix.pixelformat = format.fourcc
            f.pointee.fmt.pix.width = UInt32(width)
            f.pointee.fmt.pix.height = UInt32(height)
            f.pointee.fmt.pix.bytesperline = UInt32(bytesPerLine)
            f.pointee.fmt.pix.sizeimage = UInt32(imageSize)
        case V4L2Request.requestBuffers.number:
            let r = argument.assumingMemoryBound(to: v4l2_requestbuffers.self)
            guard liveMappings == 0 else { throw SystemErrno(EBUSY) }
            for b in buffers { b.memory.deallocate() }
            buffers = (0..<Int(r.pointee.count)).map { _ in
                Buffer(memory: UnsafeMutableRawPointer.allocate(byteCount: imageSize, alignment: 4096), length: imageSize)
            }
            queue.removeAll()
        case V4L2Request.queryBuffer.number:
            let b = argument.assumingMemoryBound(to: v4l2_buffer.self)
            guard Int(b.pointee.index) < buffers.count else { throw SystemErrno(EINVAL) }
            b.pointee.length = UInt32(buffers[Int(b.pointee.index)].length)
            b.pointee.m.offset = b.pointee.index * 4096
        case V4L2Request.queueBuffer.number:
            let index = Int(argument.assumingMemoryBound(to: v4l2_buffer.self).pointee.index)
            guard index < buffers.count, !buffers[index].queued else { throw SystemErrno(EINVAL) }
            buffers[index].queued = true
            queue.append(index)
        case V4L2Request.dequeueBuffer.number:
            guard streaming, !queue.isEmpty else { throw SystemErrno(EAGAIN) }
            let index = queue.removeFirst()
            buffers[index].queued = false
            fill(buffers[index], frame: sequence)
            let b = argument.assumingMemoryBound(to: v4l2_buffer.self)
            b.pointee.index = UInt32(index)
            b.pointee.bytesused = UInt32(imageSize)
            b.pointee.sequence = sequence
            sequence &+= 1
        case V4L2Request.streamOn.number:
            streaming = true
        case V4L2Request.streamOff.number:
            streaming = false
            for i in buffers.indices { buffers[i].queued = false }
            queue.removeAll()
        case V4L2Request.queryControl.number:
            throw SystemErrno(EINVAL)
        default:
            throw SystemErrno(ENOTTY)
        }
    }

    /// The luma of pixel (x, y) in frame `n`: a ramp that moves with the frame number.
    static func luma(x: Int, y: Int, frame: UInt32) -> UInt8 { UInt8(truncatingIfNeeded: x + 3 * y + Int(frame)) }

    private func fill(_ buffer: Buffer, frame: UInt32) {
        let bytes = buffer.memory.assumingMemoryBound(to: UInt8.self)
        for y in 0..<height {
            for x in 0..<width {
                let l = Self.luma(x: x, y: y, frame: frame)
                if format == .yuyv {
                    bytes[y * bytesPerLine + 2 * x] = l
                    bytes[y * bytesPerLine + 2 * x + 1] = 0x80 ^ UInt8(x & 0x7F)   // chroma that is not luma
                } else {
                    bytes[y * bytesPerLine + x] = l
                }
            }
        }
    }

    private static func copy<T>(_ text: String, into tuple: inout T) {
        withUnsafeMutableBytes(of: &tuple) { raw in
            raw.initializeMemory(as: UInt8.self, repeating: 0)
            for (i, byte) in text.utf8.prefix(raw.count - 1).enumerated() { raw[i] = byte }
        }
    }
}
