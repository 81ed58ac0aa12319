import CV4L2
import EdgeImaging

/// A streaming capture from one device: format negotiated, 2-4 buffers mapped, DQBUF/QBUF
/// with poll and a timeout (HW-2).
///
/// Not thread-safe: one task owns a session. `close()` (also run on deinit) stops streaming,
/// unmaps every buffer and closes the node, in that order, whatever state a failure left.
public final class CameraSession {
    public let device: VideoDevice
    public let capabilities: DeviceCapabilities
    public let format: CaptureFormat
    public let configuration: CaptureConfiguration
    private var buffers: [MappedBuffer] = []
    private var streaming = false
    /// Y extracted from packed YUYV frames; allocated once per session.
    private var lumaScratch: [UInt8] = []
    /// Buffers currently handed out of the driver (dequeued, not yet re-queued): 0 or 1.
    public private(set) var buffersOut = 0
    public private(set) var framesDelivered = 0

    public convenience init(path: String, configuration: CaptureConfiguration = CaptureConfiguration(),
                            driver: any VideoDriver = LibV4L2Driver()) throws(CaptureError) {
        try self.init(device: VideoDevice(path: path, driver: driver), configuration: configuration)
    }

    public init(device: VideoDevice, configuration: CaptureConfiguration) throws(CaptureError) {
        try configuration.validate()
        self.device = device
        self.configuration = configuration
        capabilities = try device.capabilities()
        guard capabilities.canStreamCapture else {
            throw CaptureError(.notACaptureDevice, "\(device.path) (\(capabilities.card)) is not a video capture device with streaming I/O",
                               context: ["path": device.path, "driver": capabilities.driver])
        }
        let offered = try device.offeredFormats()
        guard let (pixelFormat, size) = FormatNegotiator.choose(offered: offered, configuration: configuration) else {
            throw CaptureError(.noUsableFormat, "\(device.path) offers no format with luminance (\(offered.map { "\($0.pixelFormat)" }.joined(separator: ",")))",
                               context: ["path": device.path])
        }
        let settled = try device.setFormat(pixelFormat, size)
        guard settled.pixelFormat.lumaLayout != nil, settled.width > 0, settled.height > 0 else {
            throw CaptureError(.noUsableFormat, "\(device.path) answered \(settled) when asked for \(pixelFormat) \(size)",
                               context: ["path": device.path, "format": "\(settled)"])
        }
        // Drivers that leave bytesperline 0 (some emulated formats) mean "packed".
        let minimumLine = settled.pixelFormat == .yuyv ? settled.width * 2 : settled.width
        format = CaptureFormat(pixelFormat: settled.pixelFormat, width: settled.width, height: settled.height,
                               bytesPerLine: max(settled.bytesPerLine, minimumLine), imageSize: settled.imageSize)
        if format.pixelFormat.lumaLayout == .interleavedEven {
            lumaScratch = [UInt8](repeating: 0, count: format.width * format.height)
        }
        do {
            try CameraControls(device: device).apply(configuration.controls)
            try startStreaming()
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    private func startStreaming() throws(CaptureError) {
        var request = v4l2_requestbuffers()
        request.count = UInt32(configuration.bufferCount)
        request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        request.memory = V4L2_MEMORY_MMAP.rawValue
        try device.ioctl(.requestBuffers, &request)
        // The driver may grant fewer (or more) than asked; fewer than 2 cannot stream smoothly.
        guard request.count >= 2 else {
            throw CaptureError(.noUsableFormat, "\(device.path) granted \(request.count) buffers", context: ["path": device.path])
        }
        for index in 0..<request.count {
            var buffer = v4l2_buffer()
            buffer.index = index
            buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            buffer.memory = V4L2_MEMORY_MMAP.rawValue
            try device.ioctl(.queryBuffer, &buffer)
            let memory = try device.map(length: Int(buffer.length), offset: Int(buffer.m.offset))
            buffers.append(MappedBuffer(index: index, memory: memory))
        }
        for buffer in buffers { try queue(buffer.index) }
        var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
        try device.ioctl(.streamOn, &type)
        streaming = true
    }

    private func queue(_ index: UInt32) throws(CaptureError) {
        var buffer = v4l2_buffer()
        buffer.index = index
        buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        buffer.memory = V4L2_MEMORY_MMAP.rawValue
        try device.ioctl(.queueBuffer, &buffer)
    }

    /// Waits for the next frame and runs `body` with it; the buffer goes back to the driver as
    /// soon as the luma is no longer needed: before `body` for YUYV (Y was copied out), after it
    /// for zero-copy formats. `.timedOut` when no frame comes within the configured timeout;
    /// `.deviceGone` when the device vanished.
    public func nextFrame<R>(_ body: (CameraFrame) -> R) throws(CaptureError) -> R {
        let clock = ContinuousClock()
        let deadline = clock.now + configuration.frameTimeout
        var buffer = v4l2_buffer()
        while true {
            let remaining = deadline - clock.now
            guard remaining > .zero, try device.waitReadable(timeout: remaining) else {
                throw CaptureError(.timedOut, "no frame from \(device.path) in \(configuration.frameTimeout)",
                                   context: ["path": device.path, "frames": "\(framesDelivered)"])
            }
            buffer = v4l2_buffer()
            buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            buffer.memory = V4L2_MEMORY_MMAP.rawValue
            // Readable but nothing to dequeue happens (a spurious wake-up): wait again.
            if try device.ioctlUnlessWouldBlock(.dequeueBuffer, &buffer) { break }
        }
        let dequeuedAt = clock.now
        buffersOut += 1
        guard let mapped = buffers.first(where: { $0.index == buffer.index }) else {
            throw CaptureError(.systemError, "\(device.path) returned unknown buffer \(buffer.index)", context: ["path": device.path])
        }
        let used = buffer.bytesused > 0 ? min(Int(buffer.bytesused), mapped.memory.count) : mapped.memory.count
        let bytes = UnsafeRawBufferPointer(rebasing: mapped.memory[0..<used])
        let lumaBytes = format.bytesPerLine * (format.height - 1) + (format.pixelFormat == .yuyv ? format.width * 2 : format.width)
        guard used >= lumaBytes else {
            // A short frame (driver error, truncated MJPEG conversion): give the buffer back and
            // report nothing rather than read past the data.
            try requeue(buffer.index)
            throw CaptureError(.systemError, "\(device.path) delivered a short frame (\(used) of \(lumaBytes) bytes)",
                               context: ["path": device.path, "bytes": "\(used)"])
        }
        framesDelivered += 1
        let sequence = buffer.sequence
        switch format.pixelFormat.lumaLayout {
        case .interleavedEven:
            extractY(from: bytes)
            try requeue(buffer.index)
            return lumaScratch.withUnsafeBufferPointer { pixels in
                body(CameraFrame(sequence: sequence, dequeuedAt: dequeuedAt, format: format,
                                 luma: ImageView(width: format.width, height: format.height, rowStride: format.width, pixels: pixels),
                                 zeroCopy: false))
            }
        case .plane, nil:
            let pixels = bytes.bindMemory(to: UInt8.self)
            let result = body(CameraFrame(sequence: sequence, dequeuedAt: dequeuedAt, format: format,
                                          luma: ImageView(width: format.width, height: format.height, rowStride: format.bytesPerLine, pixels: pixels),
                                          zeroCopy: true))
            try requeue(buffer.index)
            return result
        }
    }

    private func requeue(_ index: UInt32) throws(CaptureError) {
        buffersOut -= 1
        try queue(index)
    }

    /// Y0 U Y1 V → Y0 Y1, one row at a time (rows may be padded).
    private func extractY(from bytes: UnsafeRawBufferPointer) {
        let width = format.width, line = format.bytesPerLine
        lumaScratch.withUnsafeMutableBufferPointer { out in
            for y in 0..<format.height {
                let row = y * line, outRow = y * width
                for x in 0..<width { out[outRow + x] = bytes[row + 2 * x] }
            }
        }
    }

    /// Stops streaming, unmaps, closes. Errors are ignored: the device may already be gone, and
    /// the buffers must be unmapped regardless (they pin driver memory).
    public func close() {
        if streaming {
            var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
            try? device.ioctl(.streamOff, &type)
            streaming = false
        }
        for buffer in buffers { device.unmap(buffer.memory) }
        buffers.removeAll()
        if device.isOpen {
            // REQBUFS 0 frees the driver's buffers before close, so a re-open right after finds
            // the queue free (otherwise EBUSY until the last mapping is gone).
            var release = v4l2_requestbuffers()
            release.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            release.memory = V4L2_MEMORY_MMAP.rawValue
            try? device.ioctl(.requestBuffers, &release)
        }
        buffersOut = 0
        device.close()
    }
}
