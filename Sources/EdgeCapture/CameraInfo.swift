/// One capture device as `edge cameras` lists it (HW-1).
public struct CameraInfo: Sendable, Hashable {
    public let node: String
    public let capabilities: DeviceCapabilities
    public let identity: CameraIdentity
    /// What the hardware offers (formats libv4l2 would emulate are left out).
    public let formats: [OfferedFormat]

    public init(node: String, capabilities: DeviceCapabilities, identity: CameraIdentity, formats: [OfferedFormat]) {
        self.node = node
        self.capabilities = capabilities
        self.identity = identity
        self.formats = formats
    }
}
