/// A V4L2 pixel format, by its fourcc code.
public struct PixelFormat: Sendable, Hashable, CustomStringConvertible {
    public let fourcc: UInt32

    public init(fourcc: UInt32) { self.fourcc = fourcc }

    /// From four ASCII characters ("YUYV"); nil for anything else.
    public init?(_ name: String) {
        let bytes = Array(name.utf8)
        guard bytes.count == 4, bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
        fourcc = UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24
    }

    public static let grey = PixelFormat(fourcc: 0x5945_5247)   // 'GREY'
    public static let yuyv = PixelFormat(fourcc: 0x5659_5559)   // 'YUYV'
    public static let nv12 = PixelFormat(fourcc: 0x3231_564E)   // 'NV12'
    public static let yuv420 = PixelFormat(fourcc: 0x3231_5559) // 'YU12'
    public static let mjpeg = PixelFormat(fourcc: 0x4750_4A4D)  // 'MJPG'

    /// How luminance sits in a frame of this format, or nil when the format carries none that
    /// edge can take without a colour conversion.
    public var lumaLayout: LumaLayout? {
        switch self {
        case .grey: return .plane
        // NV12 and YU12 (planar 4:2:0) start with the full-resolution Y plane.
        case .nv12, .yuv420: return .plane
        case .yuyv: return .interleavedEven
        default: return nil
        }
    }

    /// The four characters, with trailing spaces kept ("Y16 "); big-endian variants (bit 31
    /// set, V4L2's v4l2_fourcc_be) get "-BE" like v4l2-ctl prints them.
    public var description: String {
        let code = fourcc & 0x7FFF_FFFF
        let name = String(decoding: (0..<4).map { UInt8(truncatingIfNeeded: code >> (8 * $0)) }, as: UTF8.self)
        return fourcc & 0x8000_0000 != 0 ? name + "-BE" : name
    }
}
