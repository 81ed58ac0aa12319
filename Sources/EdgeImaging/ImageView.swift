/// A non-owning view of 8-bit luminance pixels: width, height and row stride over memory that
/// somebody else owns (a `GrayImage`, a mapped camera buffer). Valid only while that memory is.
public struct ImageView {
    public let width: Int
    public let height: Int
    public let rowStride: Int
    public let pixels: UnsafeBufferPointer<UInt8>

    public init(width: Int, height: Int, rowStride: Int, pixels: UnsafeBufferPointer<UInt8>) {
        precondition(width >= 0 && height >= 0 && rowStride >= width, "bad view geometry")
        precondition(height == 0 || pixels.count >= rowStride * (height - 1) + width, "view exceeds buffer")
        self.width = width
        self.height = height
        self.rowStride = rowStride
        self.pixels = pixels
    }

    /// The view of a rectangle of this one, over the same memory (no copy). Clamped to this
    /// view, so never larger than it; coordinates are clamped with saturating arithmetic:
    /// `x + w` of hostile values must not trap.
    public func region(x: Int, y: Int, width w: Int, height h: Int) -> ImageView {
        let x0 = max(0, min(width, x)), y0 = max(0, min(height, y))
        let xEnd = x.addingReportingOverflow(w), yEnd = y.addingReportingOverflow(h)
        let x1 = max(x0, min(width, xEnd.overflow ? (w > 0 ? width : 0) : xEnd.partialValue))
        let y1 = max(y0, min(height, yEnd.overflow ? (h > 0 ? height : 0) : yEnd.partialValue))
        guard x1 > x0, y1 > y0 else {
            return ImageView(width: 0, height: 0, rowStride: 0, pixels: UnsafeBufferPointer(rebasing: pixels[0..<0]))
        }
        let start = y0 * rowStride + x0
        return ImageView(width: x1 - x0, height: y1 - y0, rowStride: rowStride,
                         pixels: UnsafeBufferPointer(rebasing: pixels[start..<(start + (y1 - y0 - 1) * rowStride + (x1 - x0))]))
    }

    /// Copies the visible pixels into a tightly packed owned image.
    public func copy() -> GrayImage {
        var out = [UInt8](repeating: 0, count: width * height)
        out.withUnsafeMutableBufferPointer { dst in
            for y in 0..<height {
                let src = UnsafeBufferPointer(rebasing: pixels[(y * rowStride)..<(y * rowStride + width)])
                _ = UnsafeMutableBufferPointer(rebasing: dst[(y * width)..<(y * width + width)]).initialize(from: src)
            }
        }
        return GrayImage(width: width, height: height, pixels: out)
    }
}
