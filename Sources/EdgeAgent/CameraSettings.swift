import EdgeCapture
import EdgeCore
import FoundationEssentials

/// One entry of edge.json's `cameras` section (HW-4): capture settings and controls for a
/// camera model, keyed by USB vendor:product. See models/edge-config.schema.json.
public struct CameraSettings: Decodable, Sendable, Equatable {
    public let usb: String
    public let format: String?
    public let width: Int?
    public let height: Int?
    public let buffers: Int?
    /// Control name (as `edge cameras --controls`/v4l2-ctl print it) → value.
    public let controls: [String: Int]?

    /// The keys of one `cameras[]` entry; `controls` is keyed by control names (unknown keys
    /// elsewhere are refused).
    public static let configurationKeys = ConfigurationKeys.object(CodingKeys.self, nested: [.controls: .map(.value)])

    enum CodingKeys: String, CodingKey, CaseIterable {
        case usb, format, width, height, buffers, controls
    }

    /// The configuration for a camera of this model, starting from the defaults. `keyPath` is
    /// where the entry sits in edge.json, for the message.
    public func configuration(keyPath: String) throws(StationConfigurationError) -> CaptureConfiguration {
        var configuration = CaptureConfiguration()
        if let format {
            guard let pixel = PixelFormat(format) else {
                throw StationConfigurationError(.invalid, keyPath: keyPath + ".format", "\(format) is not a fourcc")
            }
            configuration.preferredFormats = [pixel]
        }
        if let width, let height { configuration.size = FrameSize(width: width, height: height) }
        if let buffers { configuration.bufferCount = buffers }
        configuration.controls = controls ?? [:]
        do {
            try configuration.validate()
        } catch {
            throw StationConfigurationError(.invalid, keyPath: keyPath, error.message)
        }
        return configuration
    }

    /// The settings for `identity`'s model, else the defaults.
    public static func configuration(for identity: CameraIdentity, in settings: [String: CaptureConfiguration]) -> CaptureConfiguration {
        identity.usbID.flatMap { settings[$0] } ?? CaptureConfiguration()
    }
}
