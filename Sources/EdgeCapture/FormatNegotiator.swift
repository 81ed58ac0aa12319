/// Chooses the format and size to ask a device for, from what it offers (HW-2). Pure, so the
/// fallbacks are tested without a device.
public enum FormatNegotiator {
    /// The choice, or nil when nothing offered carries luminance.
    public static func choose(offered: [OfferedFormat], configuration: CaptureConfiguration) -> (PixelFormat, FrameSize)? {
        let native = offered.filter { !$0.emulated }
        let order: [OfferedFormat] =
            // 1. A preferred format the hardware produces itself, in preference order.
            configuration.preferredFormats.compactMap { want in native.first { $0.pixelFormat == want } }
            // 2. Any other native format with a luma plane.
            + native.filter { $0.pixelFormat.lumaLayout != nil && !configuration.preferredFormats.contains($0.pixelFormat) }
            // 3. A format libv4l2 converts to (MJPEG cameras): YU12 first, its Y plane comes first.
            + offered.filter { $0.emulated && $0.pixelFormat == .yuv420 }
            + offered.filter { $0.emulated && $0.pixelFormat != .yuv420 && $0.pixelFormat.lumaLayout != nil }
        guard let format = order.first else { return nil }
        return (format.pixelFormat, size(for: configuration.size, in: format))
    }

    /// The offered size nearest the wanted one: exact; else the smallest that covers it; else
    /// the largest (a code is read best from the most pixels available). A range is clamped.
    static func size(for wanted: FrameSize, in format: OfferedFormat) -> FrameSize {
        if let low = format.minimumSize, let high = format.maximumSize {
            return FrameSize(width: min(max(wanted.width, low.width), high.width),
                             height: min(max(wanted.height, low.height), high.height))
        }
        let sizes = format.sizes.sorted()
        if sizes.contains(wanted) { return wanted }
        if let covering = sizes.first(where: { $0.width >= wanted.width && $0.height >= wanted.height }) { return covering }
        return sizes.last ?? wanted
    }
}
