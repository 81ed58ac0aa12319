import CTurboJPEG

/// `GrayImage` → baseline JPEG through TurboJPEG's `tjCompress2` (RCV-2 photo evidence).
///
/// Gray in, gray out: the capture pipeline keeps luminance only, and a one-component JPEG is a
/// third the size of a colour one at the same quality. The output carries no metadata (no Exif,
/// no camera serial or location), whatever the source was.
public enum JPEGEncoder {
    /// Quality 1...100; 85 keeps labels and damage legible at a few hundred KiB for 1080p.
    public static let defaultQuality = 85

    public static func encode(_ image: GrayImage, quality: Int = defaultQuality, name: String = "photo") throws(ImageError) -> [UInt8] {
        guard image.width > 0, image.height > 0 else {
            throw ImageError(.empty, path: name, reason: "cannot encode an empty image as JPEG")
        }
        guard (1...100).contains(quality) else {
            throw ImageError(.decoderFailure, path: name, reason: "JPEG quality must be 1 to 100 (it is \(quality))")
        }
        // TurboJPEG takes Int32 geometry; larger images are refused, not truncated.
        guard image.width <= 65_500, image.height <= 65_500, image.rowStride <= Int(Int32.max) else {
            throw ImageError(.tooLarge, path: name, reason: "\(image.width) x \(image.height) is larger than JPEG allows (65500 x 65500)")
        }
        guard let handle = tjInitCompress() else {
            throw ImageError(.decoderFailure, path: name, reason: "cannot start the JPEG encoder: \(message(nil))")
        }
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            tjCompress2(handle, pixels.baseAddress, Int32(image.width), Int32(image.rowStride), Int32(image.height),
                        Int32(TJPF_GRAY.rawValue), &output, &size, Int32(TJSAMP_GRAY.rawValue), Int32(quality), 0)
        }
        defer { if let output { tjFree(output) } }
        guard status == 0, let output, size > 0 else {
            throw ImageError(.decoderFailure, path: name, reason: "JPEG encoding failed (libjpeg: \(message(handle)))")
        }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }

    private static func message(_ handle: tjhandle?) -> String {
        guard let text = tjGetErrorStr2(handle) else { return "unknown error" }
        return String(cString: text)
    }
}
