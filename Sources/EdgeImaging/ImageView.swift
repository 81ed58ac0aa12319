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
