import CV4L2

/// Read-only questions to a device: capabilities, formats, sizes.
extension VideoDevice {
    public func capabilities() throws(CaptureError) -> DeviceCapabilities {
        var raw = v4l2_capability()
        try ioctl(.queryCapability, &raw)
        return DeviceCapabilities(raw)
    }

    /// Every capture format with its frame sizes (VIDIOC_ENUM_FMT, VIDIOC_ENUM_FRAMESIZES). The
    /// enumerations end with EINVAL, which is how V4L2 says "no more".
    public func offeredFormats() throws(CaptureError) -> [OfferedFormat] {
        var formats: [OfferedFormat] = []
        // Bounded: a broken driver that never says EINVAL cannot loop forever.
        for index in 0..<64 {
            var desc = v4l2_fmtdesc()
            desc.index = UInt32(index)
            desc.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            do {
                try ioctl(.enumerateFormat, &desc)
            } catch where error.code == .unsupported {
                break
            }
            let pixelFormat = PixelFormat(fourcc: desc.pixelformat)
            var sizes: [FrameSize] = []
            var minimum: FrameSize? = nil
            var maximum: FrameSize? = nil
            for sizeIndex in 0..<64 {
                var size = v4l2_frmsizeenum()
                size.index = UInt32(sizeIndex)
                size.pixel_format = desc.pixelformat
                do {
                    try ioctl(.enumerateFrameSizes, &size)
                } catch where error.code == .unsupported {
                    break
                }
                if size.type == V4L2_FRMSIZE_TYPE_DISCRETE.rawValue {
                    sizes.append(FrameSize(width: Int(size.discrete.width), height: Int(size.discrete.height)))
                } else {
                    minimum = FrameSize(width: Int(size.stepwise.min_width), height: Int(size.stepwise.min_height))
                    maximum = FrameSize(width: Int(size.stepwise.max_width), height: Int(size.stepwise.max_height))
                    break
                }
            }
            formats.append(OfferedFormat(pixelFormat: pixelFormat, name: DeviceCapabilities.string(desc.description),
                                         emulated: desc.flags & UInt32(V4L2_FMT_FLAG_EMULATED) != 0,
                                         sizes: sizes, minimumSize: minimum, maximumSize: maximum))
        }
        return formats
    }

    /// The current capture format (VIDIOC_G_FMT).
    public func currentFormat() throws(CaptureError) -> CaptureFormat {
        var format = v4l2_format()
        format.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        try ioctl(.getFormat, &format)
        return CaptureFormat(format.fmt.pix)
    }

    /// Asks for `pixelFormat` at `size` (VIDIOC_S_FMT); returns what the driver settled on.
    public func setFormat(_ pixelFormat: PixelFormat, _ size: FrameSize) throws(CaptureError) -> CaptureFormat {
        var format = v4l2_format()
        format.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        format.fmt.pix.pixelformat = pixelFormat.fourcc
        format.fmt.pix.width = UInt32(size.width)
        format.fmt.pix.height = UInt32(size.height)
        format.fmt.pix.field = V4L2_FIELD_NONE.rawValue
        try ioctl(.setFormat, &format)
        return CaptureFormat(format.fmt.pix)
    }
}
