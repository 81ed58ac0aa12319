/// The one place colour becomes 8-bit luminance, so every input (PNG, JPEG, PNM, camera RGB)
/// yields the same gray for the same colour.
///
/// Weights are ITU-R BT.601 in fixed point, the same constants libjpeg uses to compute Y when
/// it encodes RGB (FIX(0.299) = 19595, FIX(0.587) = 38470, FIX(0.114) = 7471, sum 65536), so
/// a colour PNG and the JPEG made from it agree on gray, as do YUYV/NV12 camera frames.
public enum Luma {
    @inlinable
    public static func bt601(red: UInt8, green: UInt8, blue: UInt8) -> UInt8 {
        let y = 19595 &* UInt32(red) &+ 38470 &* UInt32(green) &+ 7471 &* UInt32(blue) &+ 32768
        return UInt8(truncatingIfNeeded: y >> 16)
    }

    /// Gray of one CMYK sample as libjpeg stores Adobe CMYK: inverted, 255 = no ink.
    ///
    /// Uses libjpeg-turbo's own `cmyk_to_rgb` rule (R = C * K / 255, ...) and then BT.601.
    @inlinable
    public static func invertedCMYK(cyan: UInt8, magenta: UInt8, yellow: UInt8, black: UInt8) -> UInt8 {
        let k = UInt32(black)
        let r = (UInt32(cyan) &* k &+ 127) / 255
        let g = (UInt32(magenta) &* k &+ 127) / 255
        let b = (UInt32(yellow) &* k &+ 127) / 255
        return bt601(red: UInt8(truncatingIfNeeded: r), green: UInt8(truncatingIfNeeded: g), blue: UInt8(truncatingIfNeeded: b))
    }

    /// Converts `count` packed RGB pixels (3 bytes each) to gray.
    ///
    /// `destination` may alias the start of `source`: pixel `i` is read (bytes 3i...3i+2)
    /// before byte `i` is written, and `i <= 3i`.
    public static func convertRGB(_ source: UnsafePointer<UInt8>, to destination: UnsafeMutablePointer<UInt8>, count: Int) {
        var s = source
        for i in 0..<count {
            destination[i] = bt601(red: s[0], green: s[1], blue: s[2])
            s += 3
        }
    }

    /// Converts `count` packed inverted-CMYK pixels (4 bytes each) to gray; may alias as above.
    public static func convertInvertedCMYK(_ source: UnsafePointer<UInt8>, to destination: UnsafeMutablePointer<UInt8>, count: Int) {
        var s = source
        for i in 0..<count {
            destination[i] = invertedCMYK(cyan: s[0], magenta: s[1], yellow: s[2], black: s[3])
            s += 4
        }
    }
}
