import EdgeImaging
import EdgeTestSupport
import Testing

@Suite struct ResampleTests {
    /// Noise in a buffer wider than the view, so every read goes through the row stride.
    static func noise(width: Int, height: Int, stride: Int, seed: UInt64) -> [UInt8] {
        var random = SplitMix64(seed: seed)
        return (0..<(stride * height)).map { _ in UInt8.random(in: 0...255, using: &random) }
    }

    /// Each output pixel is the truncated mean of its factor x factor block, whichever loop made
    /// it: factor 2 has its own (the plan's common shrink), the others share the general one.
    @Test(arguments: [2, 3, 4])
    func downscaleIsTheMeanOfEachBlock(factor: Int) throws {
        let width = 37, height = 23, stride = 41   // odd sizes: the last partial block is dropped
        let pixels = Self.noise(width: width, height: height, stride: stride, seed: UInt64(factor))
        let shrunk = try pixels.withUnsafeBufferPointer { buffer in
            try ImageView(width: width, height: height, rowStride: stride, pixels: buffer).downscaled(by: factor)
        }
        #expect(shrunk.width == width / factor && shrunk.height == height / factor)
        for oy in 0..<shrunk.height {
            for ox in 0..<shrunk.width {
                var sum = 0
                for dy in 0..<factor { for dx in 0..<factor { sum += Int(pixels[(oy * factor + dy) * stride + ox * factor + dx]) } }
                #expect(Int(shrunk[ox, oy]) == sum / (factor * factor), "pixel (\(ox), \(oy))")
            }
        }
    }
}
