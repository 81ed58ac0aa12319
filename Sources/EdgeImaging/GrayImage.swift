/// An owned 8-bit luminance image, rows top to bottom, `rowStride` bytes apart.
///
/// Everything the decoder sees is one of these (or an `ImageView` over someone else's memory,
/// such as a camera buffer). 0 is black, 255 is white.
public struct GrayImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public let rowStride: Int
    public var pixels: [UInt8]

    /// A white image of the given size.
    public init(width: Int, height: Int, fill: UInt8 = 255) {
        precondition(width >= 0 && height >= 0, "negative image size")
        self.width = width
        self.height = height
        self.rowStride = width
        self.pixels = [UInt8](repeating: fill, count: width * height)
    }

    /// Wraps existing pixel storage; `pixels.count` must cover `rowStride * height`.
    public init(width: Int, height: Int, rowStride: Int? = nil, pixels: [UInt8]) {
        let stride = rowStride ?? width
        precondition(width >= 0 && height >= 0 && stride >= width, "bad image geometry")
        precondition(pixels.count >= stride * height, "pixel buffer smaller than geometry")
        self.width = width
        self.height = height
        self.rowStride = stride
        self.pixels = pixels
    }

    public var pixelCount: Int { width * height }

    @inlinable
    public subscript(x: Int, y: Int) -> UInt8 {
        get { pixels[y * rowStride + x] }
        set { pixels[y * rowStride + x] = newValue }
    }

    /// Runs `body` with a non-owning view of this image.
    public func withView<R, E: Error>(_ body: (ImageView) throws(E) -> R) throws(E) -> R {
        try pixels.withUnsafeBufferPointer { (buffer) throws(E) -> R in
            try body(ImageView(width: width, height: height, rowStride: rowStride, pixels: buffer))
        }
    }
}
