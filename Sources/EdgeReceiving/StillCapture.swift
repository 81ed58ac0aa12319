import EdgeCapture
import EdgeImaging

/// A still from a V4L2 camera at its best resolution, for photo evidence (RCV-2).
///
/// Decisions: "best" is the largest size the device offers for a format with luminance, capped
/// at `maxPixels` so the JPEG stays under the contract's 4 MiB; the first `warmUpFrames` frames
/// are dropped so auto exposure has settled; the still is gray, like everything the capture
/// pipeline reads. While `edge run` streams from the same device the driver refuses a second
/// stream, and the error says the device is busy.
public enum StillCapture {
    public static let maxPixels = 8_000_000
    public static let warmUpFrames = 5

    public static func capture(device path: String) throws(ReceivingError) -> GrayImage {
        do throws(CaptureError) {
            let device = try VideoDevice(path: path)
            let size = bestSize(try device.offeredFormats())
            let session = try CameraSession(device: device, configuration: CaptureConfiguration(size: size, frameTimeout: .seconds(5)))
            defer { session.close() }
            for _ in 0..<warmUpFrames { _ = try session.nextFrame { _ in () } }
            return try session.nextFrame { frame in frame.luma.copy() }
        } catch {
            throw ReceivingError(.photoFailed, "No photo from \(path): \(error.message)", context: ["device": path, "capture": error.code.rawValue])
        }
    }

    /// The largest offered size within `maxPixels` among formats with luminance; 1280x720 when
    /// the device lists none (the negotiator then takes what it has).
    static func bestSize(_ offered: [OfferedFormat]) -> FrameSize {
        var candidates: [FrameSize] = []
        for format in offered where format.pixelFormat.lumaLayout != nil {
            candidates += format.sizes
            if let high = format.maximumSize { candidates.append(clamped(high)) }
        }
        return candidates.filter { $0.pixels <= maxPixels && $0.width <= 16384 && $0.height <= 16384 }.max()
            ?? FrameSize(width: 1280, height: 720)
    }

    /// A stepwise range's maximum, scaled down (keeping its shape) to `maxPixels`.
    static func clamped(_ size: FrameSize) -> FrameSize {
        guard size.pixels > maxPixels else { return size }
        let scale = (Double(maxPixels) / Double(size.pixels)).squareRoot()
        return FrameSize(width: Int(Double(size.width) * scale) & ~1, height: Int(Double(size.height) * scale) & ~1)
    }
}
