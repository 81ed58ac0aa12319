import CTurboJPEG

/// JPEG files for tests, encoded by TurboJPEG (`tjCompress2`), plus byte surgery for Exif
/// segments, lying frame headers and scan bombs.
enum JPEGFixture {
    static func gray(width: Int, height: Int, pixels: [UInt8], progressive: Bool = false, quality: Int32 = 100) -> [UInt8] {
        compress(width: width, height: height, pixels: pixels, format: TJPF_GRAY, subsampling: TJSAMP_GRAY, progressive: progressive, quality: quality)
    }

    static func rgb(width: Int, height: Int, pixels: [UInt8], subsampling: TJSAMP = TJSAMP_444, progressive: Bool = false, quality: Int32 = 100) -> [UInt8] {
        compress(width: width, height: height, pixels: pixels, format: TJPF_RGB, subsampling: subsampling, progressive: progressive, quality: quality)
    }

    /// TurboJPEG writes CMYK input as an Adobe YCCK JPEG.
    static func cmyk(width: Int, height: Int, pixels: [UInt8], quality: Int32 = 100) -> [UInt8] {
        compress(width: width, height: height, pixels: pixels, format: TJPF_CMYK, subsampling: TJSAMP_444, progressive: false, quality: quality)
    }

    private static func compress(width: Int, height: Int, pixels: [UInt8], format: TJPF, subsampling: TJSAMP, progressive: Bool, quality: Int32) -> [UInt8] {
        guard let handle = tjInitCompress() else { fatalError("tjInitCompress failed") }
        defer { tjDestroy(handle) }
        var buffer: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let flags = TJFLAG_ACCURATEDCT | (progressive ? TJFLAG_PROGRESSIVE : 0)
        let status = pixels.withUnsafeBufferPointer { src in
            tjCompress2(handle, src.baseAddress, Int32(width), 0, Int32(height), Int32(format.rawValue),
                        &buffer, &size, Int32(subsampling.rawValue), quality, flags)
        }
        guard status == 0, let buffer else { fatalError("tjCompress2 failed: \(String(cString: tjGetErrorStr2(handle)))") }
        defer { tjFree(buffer) }
        return Array(UnsafeBufferPointer(start: buffer, count: Int(size)))
    }

    /// An APP1 "Exif" segment whose IFD0 holds only Orientation = `value`.
    static func exifSegment(orientation value: UInt16, bigEndian: Bool = true) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) -> [UInt8] { bigEndian ? PNGFixture.be32(v) : PNGFixture.be32(v).reversed() }
        var tiff: [UInt8] = bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]
        tiff += u16(42) + u32(8)
        tiff += u16(1)                                          // one entry
        tiff += u16(0x0112) + u16(3) + u32(1) + u16(value) + [0, 0]  // Orientation, SHORT, 1
        tiff += u32(0)                                          // no next IFD
        return app1(Array("Exif".utf8) + [0, 0] + tiff)
    }

    static func app1(_ payload: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    /// `jpeg` with `segment` inserted right after SOI.
    static func inserting(_ segment: [UInt8], into jpeg: [UInt8]) -> [UInt8] {
        Array(jpeg.prefix(2)) + segment + Array(jpeg.dropFirst(2))
    }

    /// Offset of the first SOFn marker's 0xFF.
    static func frameHeaderOffset(_ jpeg: [UInt8]) -> Int? {
        var i = 2
        while i + 4 <= jpeg.count {
            guard jpeg[i] == 0xFF else { return nil }
            let marker = jpeg[i + 1]
            if [0xC0, 0xC1, 0xC2].contains(marker) { return i }
            i += 2 + (Int(jpeg[i + 2]) << 8 | Int(jpeg[i + 3]))
        }
        return nil
    }

    /// `jpeg` whose frame header claims `width` x `height`.
    static func claiming(width: Int, height: Int, _ jpeg: [UInt8]) -> [UInt8] {
        guard let sof = frameHeaderOffset(jpeg) else { fatalError("no SOF") }
        var out = jpeg
        // FF Cn, length(2), precision(1), height(2), width(2)
        out[sof + 5] = UInt8(height >> 8); out[sof + 6] = UInt8(height & 0xFF)
        out[sof + 7] = UInt8(width >> 8); out[sof + 8] = UInt8(width & 0xFF)
        return out
    }

    /// A progressive `jpeg` with its last scan repeated `copies` times: libjpeg only warns about
    /// the bogus progression and would grind through every scan without a scan limit.
    static func scanBomb(_ progressive: [UInt8], copies: Int) -> [UInt8] {
        var lastSOS: Int?
        var i = 2
        // Find the last SOS by walking segments and skipping entropy-coded data.
        while i + 1 < progressive.count {
            guard progressive[i] == 0xFF else { i += 1; continue }
            let marker = progressive[i + 1]
            if marker == 0xD9 { break }
            if marker == 0x00 || (0xD0...0xD7).contains(marker) { i += 2; continue }
            let length = Int(progressive[i + 2]) << 8 | Int(progressive[i + 3])
            if marker == 0xDA { lastSOS = i }
            i += 2 + length
            if marker == 0xDA {
                // entropy data runs to the next non-stuffed, non-RST marker
                while i + 1 < progressive.count, !(progressive[i] == 0xFF && progressive[i + 1] != 0 && !(0xD0...0xD7).contains(progressive[i + 1])) { i += 1 }
            }
        }
        guard let lastSOS else { fatalError("no SOS") }
        let scan = Array(progressive[lastSOS..<i])
        var out = Array(progressive[..<i])
        for _ in 0..<copies { out += scan }
        return out + Array(progressive[i...])
    }
}
