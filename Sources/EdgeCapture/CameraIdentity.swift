/// Who a video node belongs to, from sysfs: the USB vendor:product and serial when it is a USB
/// camera (HW-1; HW-4 keys controls by vendor:product).
public struct CameraIdentity: Sendable, Hashable {
    /// "046d:0825", lower-case hex; nil for non-USB devices (CSI, vivid).
    public let usbID: String?
    public let serial: String?
    /// The resolved sysfs device directory, when there is one.
    public let sysfsPath: String?

    public init(usbID: String?, serial: String?, sysfsPath: String?) {
        self.usbID = usbID
        self.serial = serial
        self.sysfsPath = sysfsPath
    }

    /// Looks `/dev/videoN` (or a udev symlink to it) up under /sys/class/video4linux.
    public static func of(node path: String, sysfsRoot: String = "/sys") -> CameraIdentity {
        let node = Sysfs.realPath(path) ?? path
        guard let name = node.split(separator: "/").last else { return CameraIdentity(usbID: nil, serial: nil, sysfsPath: nil) }
        guard let device = Sysfs.realPath("\(sysfsRoot)/class/video4linux/\(name)/device") else {
            return CameraIdentity(usbID: nil, serial: nil, sysfsPath: nil)
        }
        // The node hangs off a USB interface; idVendor/idProduct/serial live on the USB device a
        // level or two up. Bounded walk: sysfs trees are shallow.
        var directory = device
        for _ in 0..<4 {
            if let vendor = Sysfs.read("\(directory)/idVendor"), let product = Sysfs.read("\(directory)/idProduct") {
                return CameraIdentity(usbID: "\(vendor.lowercased()):\(product.lowercased())",
                                      serial: Sysfs.read("\(directory)/serial"), sysfsPath: device)
            }
            guard let slash = directory.lastIndex(of: "/"), slash > directory.startIndex else { break }
            directory = String(directory[..<slash])
        }
        return CameraIdentity(usbID: nil, serial: nil, sysfsPath: device)
    }
}
