import EdgeCapture

/// `edge scan --camera`'s --pixel-format and --size: they win over edge.json's cameras section.
struct CameraOverride: Sendable {
    let pixelFormat: PixelFormat?
    let size: FrameSize?

    func apply(to configuration: CaptureConfiguration) -> CaptureConfiguration {
        var configuration = configuration
        if let pixelFormat { configuration.preferredFormats = [pixelFormat] }
        if let size { configuration.size = size }
        return configuration
    }
}
