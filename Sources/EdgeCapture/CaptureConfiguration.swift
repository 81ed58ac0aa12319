/// How to capture from one camera: what to ask the driver for, and how long to wait (HW-2).
public struct CaptureConfiguration: Sendable, Equatable {
    /// Formats to try, best first. Decision: GREY, YUYV, NV12 by default, because each carries
    /// luminance the decoder takes as it is (SCN-2); any other luma-carrying format the device
    /// offers comes next, and MJPEG-only cameras get YU12 converted by libv4l2.
    public var preferredFormats: [PixelFormat]
    /// The size asked for; the nearest the device offers is taken.
    public var size: FrameSize
    /// mmap buffers (2-4). Decision: 4 by default, so the driver holds 2-3 while edge decodes one.
    public var bufferCount: Int
    /// How long to wait for a frame before `.timedOut`.
    public var frameTimeout: Duration
    /// Controls set after the format (HW-4), by normalised name ("focus_absolute") → value.
    public var controls: [String: Int]

    public init(preferredFormats: [PixelFormat] = [.grey, .yuyv, .nv12], size: FrameSize = FrameSize(width: 1280, height: 720),
                bufferCount: Int = 4, frameTimeout: Duration = .seconds(2), controls: [String: Int] = [:]) {
        self.preferredFormats = preferredFormats
        self.size = size
        self.bufferCount = bufferCount
        self.frameTimeout = frameTimeout
        self.controls = controls
    }

    public func validate() throws(CaptureError) {
        guard (2...4).contains(bufferCount) else {
            throw CaptureError(.invalidConfiguration, "buffer count must be 2 to 4, not \(bufferCount)", context: ["buffers": "\(bufferCount)"])
        }
        guard size.width > 0, size.height > 0, size.width <= 16384, size.height <= 16384 else {
            throw CaptureError(.invalidConfiguration, "frame size \(size) is not usable", context: ["size": "\(size)"])
        }
        guard frameTimeout > .zero else {
            throw CaptureError(.invalidConfiguration, "the frame timeout must be positive", context: [:])
        }
        if let bad = preferredFormats.first(where: { $0.lumaLayout == nil }) {
            throw CaptureError(.invalidConfiguration, "format \(bad) carries no luminance edge can read (use GREY, YUYV, NV12 or YU12)",
                               context: ["format": "\(bad)"])
        }
    }
}
