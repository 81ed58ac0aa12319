import EdgeCapture
import FoundationEssentials

/// One entry of edge.json's `cameras` section (HW-4): capture settings and controls for a
/// camera model, keyed by USB vendor:product. See models/edge-config.schema.json.
struct CameraSettings: Decodable, Sendable, Equatable {
    let usb: String
    let format: String?
    let width: Int?
    let height: Int?
    let buffers: Int?
    /// Control name (as `edge cameras --controls`/v4l2-ctl print it) → value.
    let controls: [String: Int]?

    /// The configuration for a camera of this model, starting from the defaults.
    func configuration() throws(ConfigError) -> CaptureConfiguration {
        var configuration = CaptureConfiguration()
        if let format {
            guard let pixel = PixelFormat(format) else {
                throw ConfigError(code: .invalid, message: "cameras[\(usb)]: format \(format) is not a fourcc", path: "")
            }
            configuration.preferredFormats = [pixel]
        }
        if let width, let height { configuration.size = FrameSize(width: width, height: height) }
        if let buffers { configuration.bufferCount = buffers }
        configuration.controls = controls ?? [:]
        do {
            try configuration.validate()
        } catch {
            throw ConfigError(code: .invalid, message: "cameras[\(usb)]: \(error.message)", path: "")
        }
        return configuration
    }

    /// The settings for `identity`'s model, else the defaults.
    static func configuration(for identity: CameraIdentity, in settings: [String: CaptureConfiguration]) -> CaptureConfiguration {
        identity.usbID.flatMap { settings[$0] } ?? CaptureConfiguration()
    }
}
