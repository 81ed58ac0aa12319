import CPNG

/// PNG files for tests, made two ways:
/// - `libpng(...)`: libpng's own simplified writer (`png_image_write_to_memory`), a real encoder;
///   it writes 8-bit gray/GA/RGB/RGBA, 16-bit linear, and palettes (1/2/4/8-bit by size, with
///   tRNS when the colour map has alpha).
/// - `build(...)`: chunks assembled by hand (stored deflate blocks, real CRC and Adler-32) for
///   what that writer cannot produce: 1/2/4-bit gray, gray/RGB tRNS, 16-bit without gAMA, and
///   hostile headers.
enum PNGFixture {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    // MARK: libpng simplified writer

    /// 8-bit samples in `format` (PNG_FORMAT_*), or colour-map indices when `colormap` is given
    /// (then `format` describes the colour-map entries and must include PNG_FORMAT_FLAG_COLORMAP).
    static func libpng(width: Int, height: Int, format: UInt32, pixels: [UInt8], colormap: [UInt8]? = nil, colormapEntries: Int = 0) -> [UInt8] {
        write(width: width, height: height, format: format, colormapEntries: colormapEntries) { image, memory, size in
            pixels.withUnsafeBytes { raw in
                if let colormap {
                    return colormap.withUnsafeBytes { map in
                        png_image_write_to_memory(image, memory, size, 0, raw.baseAddress, 0, map.baseAddress)
                    }
                }
                return png_image_write_to_memory(image, memory, size, 0, raw.baseAddress, 0, nil)
            }
        }
    }

    /// 16-bit linear samples (PNG_FORMAT_LINEAR_*): libpng writes a 16-bit file with gAMA 1.0.
    static func libpng16(width: Int, height: Int, format: UInt32, samples: [UInt16]) -> [UInt8] {
        write(width: width, height: height, format: format, colormapEntries: 0) { image, memory, size in
            samples.withUnsafeBytes { raw in
                png_image_write_to_memory(image, memory, size, 0, raw.baseAddress, 0, nil)
            }
        }
    }

    private static func write(width: Int, height: Int, format: UInt32, colormapEntries: Int,
                              _ call: (UnsafeMutablePointer<png_image>, UnsafeMutableRawPointer?, UnsafeMutablePointer<Int>) -> Int32) -> [UInt8] {
        let image = UnsafeMutablePointer<png_image>.allocate(capacity: 1)
        defer { image.deallocate() }
        image.initialize(to: png_image())
        image.pointee.version = UInt32(PNG_IMAGE_VERSION)
        image.pointee.width = UInt32(width)
        image.pointee.height = UInt32(height)
        image.pointee.format = format
        image.pointee.colormap_entries = UInt32(colormapEntries)
        var size = 0
        precondition(call(image, nil, &size) != 0, "png_image_write_to_memory (size) failed")
        var out = [UInt8](repeating: 0, count: size)
        let ok = out.withUnsafeMutableBytes { call(image, $0.baseAddress, &size) }
        precondition(ok != 0, "png_image_write_to_memory failed")
        png_image_free(image)
        return Array(out.prefix(size))
    }

    // MARK: hand-built

    enum ColorType: UInt8 {
        case gray = 0, rgb = 2, palette = 3, grayAlpha = 4, rgba = 6
        var channels: Int {
            switch self {
            case .gray, .palette: 1
            case .grayAlpha: 2
            case .rgb: 3
            case .rgba: 4
            }
        }
    }

    /// A PNG from per-pixel samples (row-major, `channels` per pixel), packed at `bitDepth`.
    /// With `interlaced`, the scanlines are laid out in the seven Adam7 passes.
    static func build(width: Int, height: Int, bitDepth: Int, colorType: ColorType, samples: [Int],
                      palette: [UInt8]? = nil, transparency: [UInt8]? = nil, interlaced: Bool = false,
                      extraChunks: [(String, [UInt8])] = []) -> [UInt8] {
        let channels = colorType.channels
        precondition(samples.count == width * height * channels)
        // (x0, y0, dx, dy) per Adam7 pass; a single pass covering everything otherwise.
        let passes = interlaced
            ? [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
            : [(0, 0, 1, 1)]
        var raw: [UInt8] = []
        for (x0, y0, dx, dy) in passes {
            let xs = Array(stride(from: x0, to: width, by: dx))
            guard !xs.isEmpty else { continue }  // empty passes have no scanlines at all
            for y in stride(from: y0, to: height, by: dy) {
                raw.append(0)  // filter: none
                var row: [Int] = []
                for x in xs {
                    let first: Int = (y * width + x) * channels
                    row += samples[first..<(first + channels)]
                }
                raw += pack(row, bitDepth: bitDepth)
            }
        }
        var out = signature
        var header = ihdr(width: UInt32(width), height: UInt32(height), bitDepth: UInt8(bitDepth), colorType: colorType.rawValue)
        header[12] = interlaced ? 1 : 0
        out += chunk("IHDR", header)
        for (type, data) in extraChunks { out += chunk(type, data) }
        if let palette { out += chunk("PLTE", palette) }
        if let transparency { out += chunk("tRNS", transparency) }
        out += chunk("IDAT", zlibStored(raw))
        out += chunk("IEND", [])
        return out
    }

    /// Signature, an IHDR claiming `width` x `height` (8-bit gray), a tiny IDAT and IEND.
    static func lyingHeader(width: UInt32, height: UInt32) -> [UInt8] {
        signature + chunk("IHDR", ihdr(width: width, height: height, bitDepth: 8, colorType: 0))
            + chunk("IDAT", zlibStored([0, 0, 0, 0])) + chunk("IEND", [])
    }

    static func ihdr(width: UInt32, height: UInt32, bitDepth: UInt8, colorType: UInt8) -> [UInt8] {
        be32(width) + be32(height) + [bitDepth, colorType, 0, 0, 0]
    }

    static func pack(_ samples: [Int], bitDepth: Int) -> [UInt8] {
        switch bitDepth {
        case 8: return samples.map { UInt8($0) }
        case 16: return samples.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        default:
            var out: [UInt8] = []
            var byte = 0, used = 0
            for s in samples {
                byte = byte << bitDepth | s
                used += bitDepth
                if used == 8 { out.append(UInt8(byte)); byte = 0; used = 0 }
            }
            if used > 0 { out.append(UInt8(byte << (8 - used))) }
            return out
        }
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return be32(UInt32(data.count)) + typed + be32(crc32(typed))
    }

    /// zlib stream of stored (uncompressed) deflate blocks: valid input for any inflater.
    static func zlibStored(_ raw: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let n = min(65535, raw.count - offset)
            let final: UInt8 = offset + n == raw.count ? 1 : 0
            out += [final, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            out += raw[offset..<(offset + n)]
            offset += n
        } while offset < raw.count
        return out + be32(adler32(raw))
    }

    static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for x in bytes { a = (a + UInt32(x)) % 65521; b = (b + a) % 65521 }
        return b << 16 | a
    }
}
