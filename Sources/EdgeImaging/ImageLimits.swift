/// Resource limits applied while loading an image (SCN-10: memory stays bounded).
///
/// Both limits are checked before the memory they guard is allocated: the file size from
/// `fstat` before reading, the pixel count from the image header before decoding.
public struct ImageLimits: Sendable, Equatable {
    /// Largest accepted `width * height`, as claimed by the header. Default 64 MP.
    public var maxPixels: Int
    /// Largest accepted file, in bytes. Default 256 MiB.
    public var maxFileBytes: Int

    /// The default pixel limit, shared with `WorkBudget` so scan passes derive no image larger
    /// than the loaders would accept (SCN-10).
    public static let defaultMaxPixels = 64_000_000

    public init(maxPixels: Int = ImageLimits.defaultMaxPixels, maxFileBytes: Int = 256 << 20) {
        self.maxPixels = maxPixels
        self.maxFileBytes = maxFileBytes
    }

    /// Refuses a header-claimed size over `maxPixels` (overflow-safe), before any allocation.
    func checkPixels(width: Int, height: Int, format: String, path: String) throws(ImageError) {
        guard width > 0, height > 0 else {
            throw ImageError(.corrupt, path: path, reason: "\(format) header claims an empty image (\(width) x \(height))")
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= maxPixels else {
            let claimed = overflow ? "more than \(Int.max)" : "\(pixels)"
            throw ImageError(.tooLarge, path: path,
                             reason: "\(format) header claims \(width) x \(height) pixels (\(claimed)); the limit is \(maxPixels)")
        }
    }
}
