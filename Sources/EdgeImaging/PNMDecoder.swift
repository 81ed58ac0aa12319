/// Netpbm → `GrayImage`: PBM (P1/P4), PGM (P2/P5) and PPM (P3/P6), with header comments,
/// any maxval up to 65535 (scaled to 8 bits) and strict bounds checks.
///
/// Only the first image of a multi-image file is read; bytes after it are ignored.
enum PNMDecoder {
    /// Netpbm whitespace: space, \t, \n, \v, \f, \r.
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }

    private enum Kind {
        case bitmap, graymap, pixmap

        var name: String {
            switch self {
            case .bitmap: "PBM"
            case .graymap: "PGM"
            case .pixmap: "PPM"
            }
        }
        var samplesPerPixel: Int { self == .pixmap ? 3 : 1 }
    }

    static func decode(_ bytes: UnsafeRawBufferPointer, path: String, limits: ImageLimits) throws(ImageError) -> GrayImage {
        guard bytes.count >= 2, bytes[0] == UInt8(ascii: "P") else {
            throw ImageError(.unsupportedFormat, path: path, reason: "not a PNM image")
        }
        let kind: Kind, plain: Bool
        switch bytes[1] {
        case UInt8(ascii: "1"): (kind, plain) = (.bitmap, true)
        case UInt8(ascii: "2"): (kind, plain) = (.graymap, true)
        case UInt8(ascii: "3"): (kind, plain) = (.pixmap, true)
        case UInt8(ascii: "4"): (kind, plain) = (.bitmap, false)
        case UInt8(ascii: "5"): (kind, plain) = (.graymap, false)
        case UInt8(ascii: "6"): (kind, plain) = (.pixmap, false)
        default: throw ImageError(.unsupportedFormat, path: path, reason: "not a PBM/PGM/PPM image")
        }

        var reader = Reader(bytes: bytes, offset: 2, path: path, format: kind.name)
        let width = try reader.headerInteger("width")
        let height = try reader.headerInteger("height")
        let maxval = kind == .bitmap ? 1 : try reader.headerInteger("maxval")
        guard (1...65535).contains(maxval) else {
            throw ImageError(.corrupt, path: path, reason: "corrupt \(kind.name): maxval \(maxval) is outside 1...65535")
        }
        try limits.checkPixels(width: width, height: height, format: kind.name, path: path)
        let count = width * height

        let pixels: [UInt8]
        if plain {
            pixels = try PixelBuffer.make(count: count) { out throws(ImageError) in
                try reader.plainRaster(kind: kind, maxval: maxval, into: out)
            }
        } else {
            // Exactly one whitespace byte separates the header from the raster.
            try reader.rasterSeparator()
            pixels = try PixelBuffer.make(count: count) { out throws(ImageError) in
                try reader.rawRaster(kind: kind, width: width, height: height, maxval: maxval, into: out)
            }
        }
        return GrayImage(width: width, height: height, pixels: pixels)
    }

    /// Sample value → 8 bits, rounded: v * 255 / maxval.
    private static func scaleTable(maxval: Int) -> [UInt8] {
        (0...maxval).map { UInt8(($0 * 255 + maxval / 2) / maxval) }
    }

    /// A bounds-checked cursor over the file.
    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset: Int
        let path: String
        let format: String

        init(bytes: UnsafeRawBufferPointer, offset: Int, path: String, format: String) {
            self.bytes = bytes
            self.offset = offset
            self.path = path
            self.format = format
        }

        private func truncated(_ what: String) -> ImageError {
            ImageError(.truncated, path: path, reason: "truncated \(format): the data ends before \(what)")
        }

        private func corrupt(_ what: String) -> ImageError {
            ImageError(.corrupt, path: path, reason: "corrupt \(format): \(what)")
        }

        /// Skips whitespace and `#` comments (which run to the end of the line).
        private mutating func skipSeparators() {
            while offset < bytes.count {
                let byte = bytes[offset]
                if isWhitespace(byte) {
                    offset += 1
                } else if byte == UInt8(ascii: "#") {
                    while offset < bytes.count, bytes[offset] != 0x0A, bytes[offset] != 0x0D { offset += 1 }
                } else {
                    return
                }
            }
        }

        /// A decimal number; values past 2^31 are refused rather than wrapped.
        private mutating func integer(_ what: String) throws(ImageError) -> Int {
            skipSeparators()
            guard offset < bytes.count else { throw truncated("the \(what)") }
            var value = 0
            var digits = 0
            while offset < bytes.count, (0x30...0x39).contains(bytes[offset]) {
                value = value * 10 + Int(bytes[offset] - 0x30)
                guard value <= Int(Int32.max) else { throw corrupt("the \(what) is absurdly large") }
                offset += 1
                digits += 1
            }
            guard digits > 0 else {
                throw corrupt("expected the \(what) as a decimal number, found byte 0x\(String(bytes[offset], radix: 16))")
            }
            return value
        }

        mutating func headerInteger(_ what: String) throws(ImageError) -> Int {
            let value = try integer(what)
            // A header token must end in whitespace or a comment, never run into other bytes.
            if offset < bytes.count, !isWhitespace(bytes[offset]), bytes[offset] != UInt8(ascii: "#") {
                throw corrupt("the \(what) is followed by byte 0x\(String(bytes[offset], radix: 16))")
            }
            return value
        }

        mutating func rasterSeparator() throws(ImageError) {
            guard offset < bytes.count else { throw truncated("the pixel data") }
            guard isWhitespace(bytes[offset]) else { throw corrupt("no whitespace between header and pixel data") }
            offset += 1
        }

        /// P1/P2/P3: whitespace-separated ASCII samples (P1 bits may also be run together).
        mutating func plainRaster(kind: Kind, maxval: Int, into out: UnsafeMutableBufferPointer<UInt8>) throws(ImageError) {
            switch kind {
            case .bitmap:
                for i in 0..<out.count {
                    skipSeparators()
                    guard offset < bytes.count else { throw truncated("pixel \(i) of \(out.count)") }
                    switch bytes[offset] {
                    case UInt8(ascii: "0"): out[i] = 255
                    case UInt8(ascii: "1"): out[i] = 0
                    default: throw corrupt("pixel \(i) is byte 0x\(String(bytes[offset], radix: 16)), not 0 or 1")
                    }
                    offset += 1
                }
            case .graymap, .pixmap:
                let table = PNMDecoder.scaleTable(maxval: maxval)
                let channels = kind.samplesPerPixel
                var rgb = (0, 0, 0)
                for i in 0..<out.count {
                    for c in 0..<channels {
                        skipSeparators()
                        guard offset < bytes.count else { throw truncated("pixel \(i) of \(out.count)") }
                        let sample = try integer("sample")
                        guard sample <= maxval else { throw corrupt("sample \(sample) exceeds maxval \(maxval)") }
                        switch c {
                        case 0: rgb.0 = sample
                        case 1: rgb.1 = sample
                        default: rgb.2 = sample
                        }
                    }
                    out[i] = channels == 1
                        ? table[rgb.0]
                        : Luma.bt601(red: table[rgb.0], green: table[rgb.1], blue: table[rgb.2])
                }
            }
        }

        /// P4/P5/P6: binary samples, 1 or 2 bytes (big-endian) each; PBM rows are bit-packed.
        mutating func rawRaster(kind: Kind, width: Int, height: Int, maxval: Int, into out: UnsafeMutableBufferPointer<UInt8>) throws(ImageError) {
            let available = bytes.count - offset
            if kind == .bitmap {
                let rowBytes = (width + 7) / 8
                let needed = rowBytes * height
                guard available >= needed else { throw truncated("the end of the pixel data (\(available) of \(needed) bytes)") }
                for y in 0..<height {
                    let row = offset + y * rowBytes
                    for x in 0..<width {
                        let bit = (bytes[row + (x >> 3)] >> (7 - UInt8(x & 7))) & 1
                        out[y * width + x] = bit == 1 ? 0 : 255
                    }
                }
                offset += needed
                return
            }
            let channels = kind.samplesPerPixel
            let sampleBytes = maxval < 256 ? 1 : 2
            let needed = out.count * channels * sampleBytes
            guard available >= needed else { throw truncated("the end of the pixel data (\(available) of \(needed) bytes)") }
            let data = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + needed)])
            offset += needed

            if channels == 1, maxval == 255 {
                _ = out.initialize(from: data)
                return
            }
            let table = PNMDecoder.scaleTable(maxval: maxval)
            var overMax = false
            func sample(_ index: Int) -> UInt8 {
                let value = sampleBytes == 1 ? Int(data[index]) : Int(data[2 * index]) << 8 | Int(data[2 * index + 1])
                if value > maxval { overMax = true; return 255 }
                return table[value]
            }
            if channels == 1 {
                for i in 0..<out.count { out[i] = sample(i) }
            } else {
                for i in 0..<out.count {
                    out[i] = Luma.bt601(red: sample(3 * i), green: sample(3 * i + 1), blue: sample(3 * i + 2))
                }
            }
            if overMax { throw corrupt("a sample exceeds maxval \(maxval)") }
        }
    }
}
