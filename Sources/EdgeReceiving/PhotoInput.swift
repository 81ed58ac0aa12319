import EdgeImaging

/// Where the GRN's photo comes from (RCV-2): a still from the dock camera, or an image file.
public enum PhotoInput: Sendable, Hashable {
    case camera(device: String)
    case file(path: String)

    /// Files are read within these limits before any pixel memory is allocated: 40 MP covers any
    /// phone camera; the JPEG written from it must still fit the contract's 4 MiB.
    public static let fileLimits = ImageLimits(maxPixels: 40_000_000, maxFileBytes: 64 << 20)

    public func image() throws(ReceivingError) -> GrayImage {
        switch self {
        case .camera(let device):
            return try StillCapture.capture(device: device)
        case .file(let path):
            do {
                return try ImageLoader.load(path: path, limits: Self.fileLimits)
            } catch {
                throw ReceivingError(.photoFailed, "The photo could not be read: \(error.message)", context: ["path": path, "image": error.code.rawValue])
            }
        }
    }
}
