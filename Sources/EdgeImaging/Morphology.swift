// Neighbourhood filters for scan passes whose codes are drawn unusually (SCN-4).

extension ImageView {
    /// White border of `margin` pixels: zbar needs a quiet zone around a code, and crops, screen
    /// grabs and tightly printed labels often have none.
    public func padded(by margin: Int) -> GrayImage {
        let w = width + 2 * margin, h = height + 2 * margin
        var out = GrayImage(width: w, height: h)
        out.pixels.withUnsafeMutableBufferPointer { dst in
            for y in 0..<height {
                let d = (y + margin) * w + margin, s = y * rowStride
                for x in 0..<width { dst[d + x] = pixels[s + x] }
            }
        }
        return out
    }

    /// 3x3 minimum filter: dark areas grow by a pixel. Joins dotted or rounded QR modules into the
    /// solid squares zbar's finder search expects, and closes breaks in thin, faded bars.
    public func eroded() -> GrayImage { extremum3x3(min) }

    /// 3x3 maximum filter: light areas grow by a pixel. After `eroded()` it is a morphological
    /// opening: dark modules keep their size while light speckle inside them (QR codes filled
    /// with a picture or texture) is gone.
    public func dilated() -> GrayImage { extremum3x3(max) }

    /// The 3x3 minimum or maximum, separably: along rows into a temporary, then down columns.
    private func extremum3x3(_ pick: (UInt8, UInt8) -> UInt8) -> GrayImage {
        let w = width, h = height
        var out = GrayImage(width: w, height: h)
        guard w > 0, h > 0 else { return out }
        var tmp = [UInt8](repeating: 255, count: w * h)
        for y in 0..<h {
            let s = y * rowStride
            for x in 0..<w {
                var m = pixels[s + x]
                if x > 0 { m = pick(m, pixels[s + x - 1]) }
                if x + 1 < w { m = pick(m, pixels[s + x + 1]) }
                tmp[y * w + x] = m
            }
        }
        out.pixels.withUnsafeMutableBufferPointer { dst in
            for y in 0..<h {
                for x in 0..<w {
                    var m = tmp[y * w + x]
                    if y > 0 { m = pick(m, tmp[(y - 1) * w + x]) }
                    if y + 1 < h { m = pick(m, tmp[(y + 1) * w + x]) }
                    dst[y * w + x] = m
                }
            }
        }
        return out
    }

    /// Unsharp mask (2 x pixel - 3x3 mean): steepens the soft bar edges of out-of-focus photos so
    /// zbar's edge detector finds them.
    public func sharpened() -> GrayImage {
        let blurredImage = blurred()
        var out = GrayImage(width: width, height: height)
        out.pixels.withUnsafeMutableBufferPointer { dst in
            for y in 0..<height {
                for x in 0..<width {
                    let v = 2 * Int(pixels[y * rowStride + x]) - Int(blurredImage.pixels[y * width + x])
                    dst[y * width + x] = UInt8(max(0, min(255, v)))
                }
            }
        }
        return out
    }
}
