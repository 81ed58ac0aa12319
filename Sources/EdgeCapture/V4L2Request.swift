import CV4L2

/// A VIDIOC_* request: its number and its name (for error context).
public struct V4L2Request: Sendable, Hashable, CustomStringConvertible {
    public let number: UInt
    public let name: String

    public var description: String { name }

    public static let queryCapability = V4L2Request(number: edge_vidioc_querycap(), name: "VIDIOC_QUERYCAP")
    public static let enumerateFormat = V4L2Request(number: edge_vidioc_enum_fmt(), name: "VIDIOC_ENUM_FMT")
    public static let enumerateFrameSizes = V4L2Request(number: edge_vidioc_enum_framesizes(), name: "VIDIOC_ENUM_FRAMESIZES")
    public static let getFormat = V4L2Request(number: edge_vidioc_g_fmt(), name: "VIDIOC_G_FMT")
    public static let setFormat = V4L2Request(number: edge_vidioc_s_fmt(), name: "VIDIOC_S_FMT")
    public static let requestBuffers = V4L2Request(number: edge_vidioc_reqbufs(), name: "VIDIOC_REQBUFS")
    public static let queryBuffer = V4L2Request(number: edge_vidioc_querybuf(), name: "VIDIOC_QUERYBUF")
    public static let queueBuffer = V4L2Request(number: edge_vidioc_qbuf(), name: "VIDIOC_QBUF")
    public static let dequeueBuffer = V4L2Request(number: edge_vidioc_dqbuf(), name: "VIDIOC_DQBUF")
    public static let streamOn = V4L2Request(number: edge_vidioc_streamon(), name: "VIDIOC_STREAMON")
    public static let streamOff = V4L2Request(number: edge_vidioc_streamoff(), name: "VIDIOC_STREAMOFF")
    public static let queryControl = V4L2Request(number: edge_vidioc_queryctrl(), name: "VIDIOC_QUERYCTRL")
    public static let setControl = V4L2Request(number: edge_vidioc_s_ctrl(), name: "VIDIOC_S_CTRL")
    public static let getControl = V4L2Request(number: edge_vidioc_g_ctrl(), name: "VIDIOC_G_CTRL")
}
