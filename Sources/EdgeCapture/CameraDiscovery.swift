/// Finds the capture devices on this machine (HW-1).
public struct CameraDiscovery {
    let driver: any VideoDriver
    let devRoot: String

    public init(driver: any VideoDriver = LibV4L2Driver(), devRoot: String = "/dev") {
        self.driver = driver
        self.devRoot = devRoot
    }

    /// The `videoN` nodes in numeric order.
    public func nodes() -> [String] {
        Sysfs.list(devRoot)
            .filter { $0.hasPrefix("video") && $0.count > 5 && $0.dropFirst(5).allSatisfy(\.isNumber) }
            .sorted { (Int($0.dropFirst(5)) ?? 0) < (Int($1.dropFirst(5)) ?? 0) }
            .map { "\(devRoot)/\($0)" }
    }

    /// Each node that is a streaming capture device, or the error opening it (a node edge may
    /// not open is worth showing: it usually means a missing udev rule or group).
    /// Output-only and metadata nodes are left out.
    public func list() -> [Result<CameraInfo, CaptureError>] {
        nodes().compactMap { node in
            do throws(CaptureError) {
                guard let info = try describe(node) else { return nil }
                return .success(info)
            } catch {
                return .failure(error)
            }
        }
    }

    /// nil when `node` is not a streaming capture device.
    public func describe(_ node: String) throws(CaptureError) -> CameraInfo? {
        let device = try VideoDevice(path: node, driver: driver)
        defer { device.close() }
        let capabilities = try device.capabilities()
        guard capabilities.canStreamCapture else { return nil }
        let formats = try device.offeredFormats().filter { !$0.emulated }
        return CameraInfo(node: node, capabilities: capabilities, identity: CameraIdentity.of(node: node), formats: formats)
    }
}
