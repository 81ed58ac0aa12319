import CPNG

/// The typed seam over libpng's simplified read API: one `png_image`, its lifetime, and its
/// return codes turned into `ImageError`s.
///
/// Why the simplified API (`png_image_*`): libpng reports errors with `longjmp`, which must
/// never cross Swift frames. The simplified API does its own `setjmp` inside libpng and comes
/// back with 0 and a message instead, so no C shim is needed.
///
/// The `png_image` lives on the heap: libpng keeps its address (as the error pointer) between
/// `png_image_begin_read_from_memory` and `png_image_finish_read`, and a Swift `&local`
/// pointer is only guaranteed for the duration of one call.
final class LibPNGImage {
    private let image: UnsafeMutablePointer<png_image>
    private let path: String

    init(path: String) {
        self.path = path
        image = .allocate(capacity: 1)
        image.initialize(to: png_image())  // zeroed: opaque must start NULL
        image.pointee.version = UInt32(PNG_IMAGE_VERSION)
    }

    /// `png_image_free` on every path, success or not; it is a no-op once libpng has freed.
    deinit {
        png_image_free(image)
        image.deinitialize(count: 1)
        image.deallocate()
    }

    var width: Int { Int(image.pointee.width) }
    var height: Int { Int(image.pointee.height) }
    /// Whether the file holds colour (RGB or a palette), as opposed to gray.
    var isColor: Bool { image.pointee.format & PNG_FORMAT_FLAG_COLOR != 0 }
    /// Whether the file has alpha: an alpha channel or a tRNS chunk.
    var hasAlpha: Bool { image.pointee.format & PNG_FORMAT_FLAG_ALPHA != 0 }

    /// `png_image_begin_read_from_memory`: parses the signature and IHDR (no pixel memory).
    ///
    /// `bytes` must stay valid until `finishRead` returns: libpng reads from it lazily.
    func beginRead(_ bytes: UnsafeRawBufferPointer) throws(ImageError) {
        guard let base = bytes.baseAddress,
              png_image_begin_read_from_memory(image, base, bytes.count) != 0 else {
            throw failure()
        }
    }

    /// Treat 16-bit samples without gAMA/sRGB chunks as sRGB-encoded, as scanners and most
    /// tools mean them; the default (linear) would brighten every 16-bit image.
    func assume16BitIsSRGB() {
        image.pointee.flags |= UInt32(PNG_IMAGE_FLAG_16BIT_sRGB)
    }

    /// `png_image_finish_read` into 8-bit gray (1 byte/pixel) or RGB (3 bytes/pixel).
    ///
    /// Alpha (an alpha channel or tRNS) is composited over white: a transparent background
    /// behind a printed code is paper, not ink. libpng blends in linear light.
    func finishRead(color: Bool, into buffer: UnsafeMutableBufferPointer<UInt8>) throws(ImageError) {
        let channels = color ? 3 : 1
        let (rowBytes, overflow) = width.multipliedReportingOverflow(by: channels)
        guard !overflow, rowBytes <= Int(Int32.max), buffer.count >= rowBytes * height else {
            throw ImageError(.tooLarge, path: path, reason: "PNG rows of \(width) pixels are too wide to decode")
        }
        image.pointee.format = color ? UInt32(PNG_FORMAT_RGB) : UInt32(PNG_FORMAT_GRAY)
        var white = png_color(red: 255, green: 255, blue: 255)
        let ok = png_image_finish_read(image, &white, buffer.baseAddress, Int32(rowBytes), nil)
        guard ok != 0 else { throw failure() }
    }

    /// `png_image_finish_read` into 16-bit linear-light samples: gray or RGB, plus alpha when
    /// `alpha` (premultiplied, as libpng returns linear formats). No compositing happens here.
    func finishReadLinear(color: Bool, alpha: Bool, into buffer: UnsafeMutableBufferPointer<UInt16>) throws(ImageError) {
        let channels = (color ? 3 : 1) + (alpha ? 1 : 0)
        let (rowSamples, overflow) = width.multipliedReportingOverflow(by: channels)
        guard !overflow, rowSamples <= Int(Int32.max), buffer.count >= rowSamples * height else {
            throw ImageError(.tooLarge, path: path, reason: "PNG rows of \(width) pixels are too wide to decode")
        }
        image.pointee.format = PNG_FORMAT_FLAG_LINEAR | (color ? PNG_FORMAT_FLAG_COLOR : 0) | (alpha ? PNG_FORMAT_FLAG_ALPHA : 0)
        // Row stride counts 16-bit components here, not bytes.
        let ok = png_image_finish_read(image, nil, buffer.baseAddress, Int32(rowSamples), nil)
        guard ok != 0 else { throw failure() }
    }

    /// libpng's 64-byte message, as a `.corrupt` error (the decoder may reclassify it).
    private func failure() -> ImageError {
        let text = withUnsafeBytes(of: image.pointee.message) { raw -> String in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
        return ImageError(.corrupt, path: path, reason: "corrupt PNG (libpng: \(text.isEmpty ? "unknown error" : text))")
    }
}
