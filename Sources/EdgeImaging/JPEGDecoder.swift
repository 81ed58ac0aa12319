import CTurboJPEG

/// JPEG → `GrayImage` through TurboJPEG: baseline, progressive, gray, YCbCr, RGB and CMYK/YCCK,
/// turned upright by the Exif orientation (SCN-1).
///
/// YCbCr and gray files decode straight to TJPF_GRAY: libjpeg then skips the chroma IDCTs and
/// hands over Y, which is BT.601 luma, the same as `Luma`. CMYK/YCCK files cannot go to gray
/// inside libjpeg, so they decode to TJPF_CMYK and `Luma` converts them, treating samples as
/// Adobe-inverted (what Photoshop writes and libjpeg-turbo itself assumes).
enum JPEGDecoder {
    static func decode(_ bytes: UnsafeRawBufferPointer, path: String, limits: ImageLimits) throws(ImageError) -> GrayImage {
        let jpeg = try TurboJPEGDecompressor(path: path)
        let header: TurboJPEGDecompressor.Header
        do throws(ImageError) {
            header = try jpeg.header(bytes)
        } catch {
            // TurboJPEG 2.1's header call refuses sampling factors it has no TJSAMP for (4x2,
            // 3x1, ...) although tjDecompress2 decodes them; read the frame header ourselves.
            guard let frame = JPEGMarkers.frame(bytes) else { throw reclassify(error, bytes) }
            let colorspace = switch frame.components {
            case 1: TJCS_GRAY
            case 4: TJCS_CMYK  // or YCCK: libjpeg converts either to CMYK output
            default: TJCS_YCbCr
            }
            header = .init(width: frame.width, height: frame.height, colorspace: Int32(colorspace.rawValue))
        }
        let width = header.width, height = header.height
        // From the frame header alone, before any pixel memory (a 65000 x 65000 claim stops here).
        try limits.checkPixels(width: width, height: height, format: "JPEG", path: path)
        // libjpeg would pad a cut-off stream with gray and only warn; refuse it up front.
        if JPEGMarkers.isTruncated(bytes) {
            throw truncated(path)
        }
        let count = width * height
        let isCMYK = header.colorspace == Int32(TJCS_CMYK.rawValue) || header.colorspace == Int32(TJCS_YCCK.rawValue)

        let pixels: [UInt8]
        if isCMYK {
            let cmyk = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: count * 4)
            defer { cmyk.deallocate() }
            try jpeg.decompress(bytes, into: cmyk, width: width, height: height, format: TJPF_CMYK)
            pixels = [UInt8](unsafeUninitializedCapacity: count) { gray, initialized in
                guard let source = cmyk.baseAddress, let destination = gray.baseAddress else { return }
                Luma.convertInvertedCMYK(UnsafePointer(source), to: destination, count: count)
                initialized = count
            }
        } else {
            pixels = try PixelBuffer.make(count: count) { gray throws(ImageError) in
                try jpeg.decompress(bytes, into: gray, width: width, height: height, format: TJPF_GRAY)
            }
        }
        guard pixels.count == count else {
            throw ImageError(.decoderFailure, path: path, reason: "could not allocate \(count) pixels")
        }
        let image = GrayImage(width: width, height: height, pixels: pixels)
        guard let orientation = ExifOrientation.inJPEG(bytes) else { return image }
        return orientation.apply(to: image)
    }

    private static func truncated(_ path: String) -> ImageError {
        ImageError(.truncated, path: path, reason: "truncated JPEG: the data ends before the end-of-image marker")
    }

    private static func reclassify(_ error: ImageError, _ bytes: UnsafeRawBufferPointer) -> ImageError {
        guard error.code == .corrupt, JPEGMarkers.isTruncated(bytes) else { return error }
        return truncated(error.path)
    }
}
