import Glibc

/// PNG → `GrayImage` through libpng (every bit depth and colour type, interlaced or not).
///
/// Gray files are read straight to 8-bit gray. Colour files (RGB, palette) are read as 8-bit
/// RGB and converted with `Luma`, so a colour PNG gives the same gray as the JPEG or PPM of
/// the same picture; libpng's own RGB→gray uses different (BT.709, linear-light) weights.
enum PNGDecoder {
    static func decode(_ bytes: UnsafeRawBufferPointer, path: String, limits: ImageLimits) throws(ImageError) -> GrayImage {
        // The chunk list is walked before libpng sees the file, for two reasons:
        // - libpng allocates each ancillary chunk's declared length before reading it, and
        //   Debian's build sets no chunk limit: a 225-byte file declaring a 1.8 GB tEXt chunk
        //   asked for 1.8 GB (found by the png fuzz target). Every chunk that fits in the file
        //   is bounded by the file's size, which the loader already limits.
        // - The simplified reader stops after the image data and never asks for IEND, so a
        //   cut-off file could pass; it is refused here, as the JPEG decoder does.
        if isTruncated(bytes) {
            throw truncated(path)
        }
        let png = LibPNGImage(path: path)
        try png.beginRead(bytes)
        let width = png.width, height = png.height
        // From IHDR alone, before a single pixel byte is allocated.
        try limits.checkPixels(width: width, height: height, format: "PNG", path: path)
        png.assume16BitIsSRGB()
        let count = width * height

        let pixels: [UInt8]
        // IHDR is the first chunk (libpng has just validated it): bit depth at 24, interlace at 28.
        if bytes.count > 28, bytes[24] == 16, bytes[28] == 1 {
            pixels = try decodeInterlaced16Bit(png, count: count)
        } else if png.isColor {
            let rgb = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: count * 3)
            defer { rgb.deallocate() }
            try png.finishRead(color: true, into: rgb)
            pixels = [UInt8](unsafeUninitializedCapacity: count) { gray, initialized in
                guard let source = rgb.baseAddress, let destination = gray.baseAddress else { return }
                Luma.convertRGB(UnsafePointer(source), to: destination, count: count)
                initialized = count
            }
        } else {
            pixels = try PixelBuffer.make(count: count) { gray throws(ImageError) in
                try png.finishRead(color: false, into: gray)
            }
        }
        guard pixels.count == count else {
            throw ImageError(.decoderFailure, path: path, reason: "could not allocate \(count) pixels")
        }
        return GrayImage(width: width, height: height, pixels: pixels)
    }

    /// Workaround for libpng's simplified reader corrupting Adam7-interlaced 16-bit images
    /// when asked for 8-bit output (libpng issue #853, its `do_local_scale` path): read 16-bit
    /// linear instead, then composite over white and encode sRGB here, as libpng would have.
    private static func decodeInterlaced16Bit(_ png: LibPNGImage, count: Int) throws(ImageError) -> [UInt8] {
        let color = png.isColor, alpha = png.hasAlpha
        let channels = (color ? 3 : 1) + (alpha ? 1 : 0)
        let linear = UnsafeMutableBufferPointer<UInt16>.allocate(capacity: count * channels)
        defer { linear.deallocate() }
        try png.finishReadLinear(color: color, alpha: alpha, into: linear)
        let encode = sRGBFromLinear16
        return [UInt8](unsafeUninitializedCapacity: count) { gray, initialized in
            for i in 0..<count {
                let p = i * channels
                // Premultiplied over white: c + white * (1 - a).
                let paper = alpha ? 65535 - Int(linear[p + channels - 1]) : 0
                func srgb(_ c: Int) -> UInt8 { encode[min(65535, Int(linear[p + c]) + paper)] }
                gray[i] = color ? Luma.bt601(red: srgb(0), green: srgb(1), blue: srgb(2)) : srgb(0)
            }
            initialized = count
        }
    }

    /// Linear 16-bit → 8-bit sRGB, built on first use. The power law 1/2.2 (not the piecewise
    /// sRGB curve) because that is what libpng's 16-bit gamma path used to linearise: this
    /// inverts it, so results match the 8-bit path.
    private static let sRGBFromLinear16: [UInt8] = (0...65535).map { value in
        let encoded = pow(Double(value) / 65535, 1 / 2.2)
        return UInt8(min(255, max(0, (encoded * 255).rounded())))
    }

    private static func truncated(_ path: String) -> ImageError {
        ImageError(.truncated, path: path, reason: "truncated PNG: the data ends before the IEND chunk")
    }

    /// Walks the chunk list (length, type, data, CRC) and reports whether the data runs out
    /// before a complete IEND chunk, i.e. whether any chunk claims more bytes than the file has
    /// left. Lengths are bounds-checked; CRCs are libpng's business.
    static func isTruncated(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 8  // signature
        guard bytes.count >= offset else { return true }
        while true {
            guard bytes.count - offset >= 8 else { return true }
            let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let isEnd = bytes[offset + 4] == 0x49 && bytes[offset + 5] == 0x45 && bytes[offset + 6] == 0x4E && bytes[offset + 7] == 0x44
            // Lengths above 2^31 - 1 are invalid PNG: corrupt, not short.
            guard length <= Int(Int32.max) else { return false }
            let chunkEnd = offset + 12 + length
            guard chunkEnd <= bytes.count else { return true }
            if isEnd { return false }
            offset = chunkEnd
        }
    }
}
