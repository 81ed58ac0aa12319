import CTurboJPEG

/// The typed seam over the TurboJPEG 2.1 decompressor: one handle, its lifetime, and its
/// return codes turned into `ImageError`s.
///
/// TurboJPEG catches libjpeg's `longjmp` errors internally and returns -1, so Swift can call
/// it directly. A handle is not thread-safe; each decode makes its own (cheap).
final class TurboJPEGDecompressor {
    private let handle: tjhandle
    private let path: String

    struct Header {
        let width: Int
        let height: Int
        /// A `TJCS` value: TJCS_GRAY, TJCS_YCbCr, TJCS_RGB, TJCS_CMYK, TJCS_YCCK.
        let colorspace: Int32
    }

    /// `tjInitDecompress`.
    init(path: String) throws(ImageError) {
        self.path = path
        guard let handle = tjInitDecompress() else {
            throw ImageError(.decoderFailure, path: path, reason: "cannot start the JPEG decoder: \(Self.message(nil))")
        }
        self.handle = handle
    }

    /// `tjDestroy`.
    deinit {
        tjDestroy(handle)
    }

    /// `tjDecompressHeader3`: dimensions and colour space, without decoding pixels.
    func header(_ bytes: UnsafeRawBufferPointer) throws(ImageError) -> Header {
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        let status = tjDecompressHeader3(handle, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt(bytes.count),
                                         &width, &height, &subsampling, &colorspace)
        // A warning (-1 with TJERR_WARNING) still fills in the header; only trust it if it did.
        if status != 0, !(isWarning && width > 0 && height > 0) {
            throw failure()
        }
        // TurboJPEG 2.1 reads headers with require_image = FALSE: data that stops before the
        // frame header "succeeds" with 0 x 0.
        guard width > 0, height > 0 else {
            throw ImageError(.corrupt, path: path, reason: "corrupt JPEG: no frame header before the image data")
        }
        return Header(width: Int(width), height: Int(height), colorspace: colorspace)
    }

    /// `tjDecompress2` into `buffer` (`width * height * bytes per pixel` of `format`).
    ///
    /// Always TJFLAG_LIMITSCANS: a progressive file with thousands of tiny scans (a "JPEG
    /// bomb") is refused instead of burning CPU. Not TJFLAG_STOPONWARNING: a warning (-1 with
    /// TJERR_WARNING) means libjpeg recovered and wrote the whole image, as with camera files
    /// carrying a few extraneous bytes, so it is accepted; truncation, which libjpeg also
    /// reports only as a warning, is caught structurally (`JPEGMarkers.isTruncated`) first.
    func decompress(_ bytes: UnsafeRawBufferPointer, into buffer: UnsafeMutableBufferPointer<UInt8>,
                    width: Int, height: Int, format: TJPF) throws(ImageError) {
        let pixelSize = format == TJPF_CMYK ? 4 : (format == TJPF_GRAY ? 1 : 3)
        guard width <= Int(Int32.max) / pixelSize, height <= Int(Int32.max),
              buffer.count >= width * height * pixelSize else {
            throw ImageError(.decoderFailure, path: path, reason: "JPEG output buffer does not match \(width) x \(height)")
        }
        let status = tjDecompress2(handle, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt(bytes.count),
                                   buffer.baseAddress, Int32(width), Int32(width * pixelSize), Int32(height),
                                   Int32(format.rawValue), TJFLAG_LIMITSCANS)
        if status != 0, !isWarning {
            throw failure()
        }
    }

    /// `tjGetErrorCode`: TJERR_WARNING means libjpeg recovered and finished.
    private var isWarning: Bool { tjGetErrorCode(handle) == Int32(TJERR_WARNING.rawValue) }

    /// `tjGetErrorStr2` as a `.corrupt` (or `.unsupportedFormat`) error; the decoder may
    /// reclassify it as truncation.
    private func failure() -> ImageError {
        let text = Self.message(handle)
        let code: ImageErrorCode = text.contains("Unsupported") || text.contains("unsupported") ? .unsupportedFormat : .corrupt
        return ImageError(code, path: path, reason: "\(code == .corrupt ? "corrupt" : "unsupported") JPEG (libjpeg: \(text))")
    }

    private static func message(_ handle: tjhandle?) -> String {
        guard let text = tjGetErrorStr2(handle) else { return "unknown error" }
        return String(cString: text)
    }
}
