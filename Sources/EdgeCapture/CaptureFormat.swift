import CV4L2

/// The format a session negotiated with the driver.
public struct CaptureFormat: Sendable, Hashable, CustomStringConvertible {
    public let pixelFormat: PixelFormat
    public let width: Int
    public let height: Int
    /// Bytes per row of the first plane, as the driver reported it (may exceed width).
    public let bytesPerLine: Int
    /// Bytes a whole frame takes.
    public let imageSize: Int

    public init(pixelFormat: PixelFormat, width: Int, height: Int, bytesPerLine: Int, imageSize: Int) {
        self.pixelFormat = pixelFormat
        self.width = width
        self.height = height
        self.bytesPerLine = bytesPerLine
        self.imageSize = imageSize
    }

    public var description: String { "\(pixelFormat) \(width)x\(height)" }

    /// From what VIDIOC_G_FMT/S_FMT returned.
    init(_ pix: v4l2_pix_format) {
        self.init(pixelFormat: PixelFormat(fourcc: pix.pixelformat), width: Int(pix.width), height: Int(pix.height),
                  bytesPerLine: Int(pix.bytesperline), imageSize: Int(pix.sizeimage))
    }
}
