/// One pixel format a device offers, with its frame sizes.
public struct OfferedFormat: Sendable, Hashable {
    public let pixelFormat: PixelFormat
    public let name: String
    /// True when libv4l2 produces it by converting another format in user space.
    public let emulated: Bool
    /// Discrete sizes (VIDIOC_ENUM_FRAMESIZES); empty when the device gives a range or nothing.
    public let sizes: [FrameSize]
    /// For stepwise or continuous sizes: the smallest and largest.
    public let minimumSize: FrameSize?
    public let maximumSize: FrameSize?

    public init(pixelFormat: PixelFormat, name: String, emulated: Bool, sizes: [FrameSize],
                minimumSize: FrameSize? = nil, maximumSize: FrameSize? = nil) {
        self.pixelFormat = pixelFormat
        self.name = name
        self.emulated = emulated
        self.sizes = sizes
        self.minimumSize = minimumSize
        self.maximumSize = maximumSize
    }
}
