/// One control a device offers (VIDIOC_QUERYCTRL), under its normalised name.
public struct CameraControl: Sendable, Hashable {
    public let id: UInt32
    /// Lower-case words joined by "_", as v4l2-ctl prints them: "Focus, Absolute" → "focus_absolute".
    public let name: String
    public let minimum: Int
    public let maximum: Int
    public let defaultValue: Int

    public init(id: UInt32, name: String, minimum: Int, maximum: Int, defaultValue: Int) {
        self.id = id
        self.name = name
        self.minimum = minimum
        self.maximum = maximum
        self.defaultValue = defaultValue
    }

    public static func normalise(_ label: String) -> String {
        var out = ""
        var pendingSeparator = false
        for scalar in label.lowercased().unicodeScalars {
            if ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) {
                if pendingSeparator && !out.isEmpty { out += "_" }
                pendingSeparator = false
                out.unicodeScalars.append(scalar)
            } else {
                pendingSeparator = true
            }
        }
        return out
    }
}
