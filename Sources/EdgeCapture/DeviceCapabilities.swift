import CV4L2

/// What VIDIOC_QUERYCAP says about a node.
public struct DeviceCapabilities: Sendable, Hashable {
    public let driver: String
    public let card: String
    public let busInfo: String
    /// The node's own capabilities (device_caps when the driver sets it, else capabilities).
    public let deviceCaps: UInt32

    public init(driver: String, card: String, busInfo: String, deviceCaps: UInt32) {
        self.driver = driver
        self.card = card
        self.busInfo = busInfo
        self.deviceCaps = deviceCaps
    }

    init(_ raw: v4l2_capability) {
        driver = Self.string(raw.driver)
        card = Self.string(raw.card)
        busInfo = Self.string(raw.bus_info)
        // A multi-node device reports the union in `capabilities`; `device_caps` is this node's.
        deviceCaps = raw.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0 ? raw.device_caps : raw.capabilities
    }

    /// Single-planar capture with streaming I/O: what `CameraSession` drives.
    public var canStreamCapture: Bool {
        deviceCaps & UInt32(V4L2_CAP_VIDEO_CAPTURE) != 0 && deviceCaps & UInt32(V4L2_CAP_STREAMING) != 0
    }

    /// A fixed-size NUL-padded C char array as a string.
    static func string<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { bytes in String(decoding: bytes.prefix(while: { $0 != 0 }), as: UTF8.self) }
    }
}
