import Glibc  // cos, sin

/// Geometry of a rotation done by `ImageView.rotated(degrees:)`: the output canvas is enlarged
/// so nothing is cut off, and both images share their centre.
public struct RotationGeometry: Sendable, Equatable {
    public let degrees: Double
    public let sourceWidth: Int, sourceHeight: Int
    public let width: Int, height: Int

    /// Maps a point of the rotated image back to the source image.
    public func sourcePoint(x: Double, y: Double) -> (x: Double, y: Double) {
        let r = degrees * .pi / 180
        let c = cos(r), s = sin(r)
        let dx = x - Double(width) / 2, dy = y - Double(height) / 2
        return (c * dx - s * dy + Double(sourceWidth) / 2, s * dx + c * dy + Double(sourceHeight) / 2)
    }
}

extension ImageView {
    /// Rotates by `degrees` (bilinear, white fill). zbar's linear scanners read 1D codes only near
    /// horizontal or vertical, so a code at 45 degrees needs its image turned (SCN-4).
    ///
    /// The canvas is the rotated bounding box, which for a long thin image is about the square
    /// of its length (200,000 x 2 at 45 degrees: 141,423 x 141,423); it is computed and checked
    /// against `budget` before anything is allocated.
    public func rotated(degrees: Double, budget: WorkBudget = .standard) throws(TransformError) -> (image: GrayImage, geometry: RotationGeometry) {
        let operation = "rotate by \(degrees) degrees"
        guard degrees.isFinite else {
            throw TransformError(.badParameter, "\(operation): the angle must be finite", context: ["operation": operation])
        }
        let r = degrees * .pi / 180
        let c = cos(r), s = sin(r)
        let w = try budget.checkedSide(abs(Double(width) * c) + abs(Double(height) * s), for: operation)
        let h = try budget.checkedSide(abs(Double(width) * s) + abs(Double(height) * c), for: operation)
        let geometry = RotationGeometry(degrees: degrees, sourceWidth: width, sourceHeight: height, width: w, height: h)
        var out = try GrayImage(width: w, height: h, budget: budget, for: operation)
        guard width > 1, height > 1 else { return (out, geometry) }
        let cxOut = Double(w) / 2, cyOut = Double(h) / 2
        let cxIn = Double(width) / 2, cyIn = Double(height) / 2
        let maxX = Double(width - 1), maxY = Double(height - 1)
        var meter = budget.meter(operation)
        try out.pixels.withUnsafeMutableBufferPointer { (dst) throws(TransformError) in
            for y in 0..<h {
                let dy = Double(y) + 0.5 - cyOut
                // Source position for x = 0, then step by (c, s) per output pixel.
                var sx = c * (0.5 - cxOut) - s * dy + cxIn - 0.5
                var sy = s * (0.5 - cxOut) + c * dy + cyIn - 0.5
                for x in 0..<w {
                    if sx >= 0 && sy >= 0 && sx < maxX && sy < maxY {
                        let x0 = Int(sx), y0 = Int(sy)
                        let fx = sx - Double(x0), fy = sy - Double(y0)
                        let i = y0 * rowStride + x0
                        let p00 = Double(pixels[i]), p01 = Double(pixels[i + 1])
                        let p10 = Double(pixels[i + rowStride]), p11 = Double(pixels[i + rowStride + 1])
                        let top = p00 + (p01 - p00) * fx, bottom = p10 + (p11 - p10) * fx
                        dst[y * w + x] = UInt8(top + (bottom - top) * fy + 0.5)
                    }
                    sx += c
                    sy += s
                }
                try meter.advance(by: w)
            }
        }
        return (out, geometry)
    }
}
