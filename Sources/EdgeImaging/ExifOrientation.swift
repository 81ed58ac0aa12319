/// The EXIF/TIFF Orientation tag (0x0112): how the stored pixels must be turned to appear
/// upright (SCN-1). Cases are named as in the TIFF specification, "<side of row 0><side of
/// column 0>": `.rightTop` (6) means stored row 0 is the visual right edge, i.e. the stored
/// image must be rotated 90° clockwise.
///
/// Parsing is done here in Swift, bounds-checked at every read, because the data is
/// attacker-controlled and TurboJPEG does not expose it. Anything malformed yields nil
/// (treated as upright), never an error: the pixels are still fine.
public enum ExifOrientation: Int, Sendable, CaseIterable {
    case topLeft = 1
    case topRight = 2
    case bottomRight = 3
    case bottomLeft = 4
    case leftTop = 5
    case rightTop = 6
    case rightBottom = 7
    case leftBottom = 8

    /// Whether upright output is `height` wide and `width` tall (values 5-8).
    public var swapsDimensions: Bool { rawValue >= 5 }

    /// The orientation in a JPEG's first Exif APP1 segment, if there is a valid one.
    public static func inJPEG(_ jpeg: UnsafeRawBufferPointer) -> ExifOrientation? {
        guard let tiff = JPEGMarkers.exifPayload(jpeg) else { return nil }
        return parse(tiff: tiff)
    }

    public static func inJPEG(_ jpeg: [UInt8]) -> ExifOrientation? {
        jpeg.withUnsafeBytes { inJPEG($0) }
    }

    /// IFD0's orientation in a TIFF structure: "II*\0" or "MM\0*", the IFD0 offset, then
    /// 12-byte entries. Accepts SHORT (the standard type) and, leniently, LONG values.
    public static func parse(tiff: UnsafeRawBufferPointer) -> ExifOrientation? {
        guard tiff.count >= 8 else { return nil }
        let little: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at <= tiff.count - 2 else { return nil }
            let a = Int(tiff[at]), b = Int(tiff[at + 1])
            return little ? a | b << 8 : a << 8 | b
        }
        func u32(_ at: Int) -> Int? {
            guard let first = u16(at), let second = u16(at + 2) else { return nil }
            return little ? first | second << 16 : first << 16 | second
        }
        guard u16(2) == 42, let ifd = u32(4), ifd >= 8, let entries = u16(ifd) else { return nil }
        for index in 0..<entries {
            let entry = ifd + 2 + index * 12
            guard let tag = u16(entry), let type = u16(entry + 2), let count = u32(entry + 4) else { return nil }
            guard tag == 0x0112 else { continue }
            guard count >= 1 else { return nil }
            let value: Int?
            switch type {
            case 3: value = u16(entry + 8)  // SHORT, left-justified in the 4-byte value field
            case 4: value = u32(entry + 8)  // LONG
            default: value = nil
            }
            return value.flatMap { ExifOrientation(rawValue: $0) }
        }
        return nil
    }

    public static func parse(tiff: [UInt8]) -> ExifOrientation? {
        tiff.withUnsafeBytes { parse(tiff: $0) }
    }

    /// The image turned upright: flipped and/or rotated as the tag says.
    public func apply(to image: GrayImage) -> GrayImage {
        let w = image.width, h = image.height, stride = image.rowStride
        guard self != .topLeft, w > 0, h > 0 else { return image }
        // Source index of output pixel (0, 0) and its steps along output x and y.
        let start: Int, stepX: Int, stepY: Int
        switch self {
        case .topLeft: (start, stepX, stepY) = (0, 1, stride)
        case .topRight: (start, stepX, stepY) = (w - 1, -1, stride)
        case .bottomRight: (start, stepX, stepY) = ((h - 1) * stride + w - 1, -1, -stride)
        case .bottomLeft: (start, stepX, stepY) = ((h - 1) * stride, 1, -stride)
        case .leftTop: (start, stepX, stepY) = (0, stride, 1)
        case .rightTop: (start, stepX, stepY) = ((h - 1) * stride, -stride, 1)
        case .rightBottom: (start, stepX, stepY) = ((h - 1) * stride + w - 1, -stride, -1)
        case .leftBottom: (start, stepX, stepY) = (w - 1, stride, -1)
        }
        let outWidth = swapsDimensions ? h : w
        let outHeight = swapsDimensions ? w : h
        let pixels = image.pixels.withUnsafeBufferPointer { source in
            [UInt8](unsafeUninitializedCapacity: outWidth * outHeight) { out, initialized in
                for y in 0..<outHeight {
                    var s = start + y * stepY
                    let row = y * outWidth
                    for x in 0..<outWidth {
                        out[row + x] = source[s]
                        s += stepX
                    }
                }
                initialized = outWidth * outHeight
            }
        }
        return GrayImage(width: outWidth, height: outHeight, pixels: pixels)
    }
}
