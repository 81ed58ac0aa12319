import CV4L2

/// Reads and sets a device's controls by name (HW-4: focus, exposure, gain per camera model).
public struct CameraControls {
    let device: VideoDevice

    public init(device: VideoDevice) { self.device = device }

    /// Every enabled integer-like control (VIDIOC_QUERYCTRL with V4L2_CTRL_FLAG_NEXT_CTRL).
    public func list() throws(CaptureError) -> [CameraControl] {
        var controls: [CameraControl] = []
        var nextID = UInt32(V4L2_CTRL_FLAG_NEXT_CTRL)
        // Bounded: a driver that keeps answering cannot loop forever.
        for _ in 0..<512 {
            var query = v4l2_queryctrl()
            query.id = nextID
            do {
                try device.ioctl(.queryControl, &query)
            } catch where error.code == .unsupported {
                break
            }
            nextID = query.id | UInt32(V4L2_CTRL_FLAG_NEXT_CTRL)
            let settable = query.flags & UInt32(V4L2_CTRL_FLAG_DISABLED | V4L2_CTRL_FLAG_READ_ONLY) == 0
            let simple = [V4L2_CTRL_TYPE_INTEGER, V4L2_CTRL_TYPE_BOOLEAN, V4L2_CTRL_TYPE_MENU, V4L2_CTRL_TYPE_INTEGER_MENU]
                .contains { $0.rawValue == query.type }
            guard settable && simple else { continue }
            controls.append(CameraControl(id: query.id, name: CameraControl.normalise(DeviceCapabilities.string(query.name)),
                                          minimum: Int(query.minimum), maximum: Int(query.maximum), defaultValue: Int(query.default_value)))
        }
        return controls
    }

    public func value(of control: CameraControl) throws(CaptureError) -> Int {
        var raw = v4l2_control(id: control.id, value: 0)
        try device.ioctl(.getControl, &raw)
        return Int(raw.value)
    }

    /// Sets `values` by name. Decision: automatic modes ("focus_auto", "exposure_auto") are set
    /// before the rest, because drivers refuse a manual value while its automatic mode is on.
    /// An unknown name or out-of-range value is a configuration error, not skipped: the settings
    /// are keyed by camera model, so a miss means the configuration is wrong for this camera.
    public func apply(_ values: [String: Int]) throws(CaptureError) {
        guard !values.isEmpty else { return }
        let available = try list()
        let ordered = values.sorted { a, b in
            let autoA = a.key.contains("auto"), autoB = b.key.contains("auto")
            return autoA != autoB ? autoA : a.key < b.key
        }
        for (name, value) in ordered {
            guard let control = available.first(where: { $0.name == name }) else {
                throw CaptureError(.invalidConfiguration, "\(device.path) has no control \(name) (it has: \(available.map(\.name).joined(separator: ", ")))",
                                   context: ["path": device.path, "control": name])
            }
            guard (control.minimum...control.maximum).contains(value) else {
                throw CaptureError(.invalidConfiguration, "\(name) must be \(control.minimum) to \(control.maximum), not \(value)",
                                   context: ["path": device.path, "control": name, "value": "\(value)"])
            }
            var raw = v4l2_control(id: control.id, value: Int32(value))
            do {
                try device.ioctl(.setControl, &raw)
            } catch where error.code != .deviceGone {
                throw CaptureError(.invalidConfiguration, "\(device.path) refused \(name)=\(value): \(error.message)",
                                   context: error.context.merging(["control": name, "value": "\(value)"]) { $1 })
            }
        }
    }
}
