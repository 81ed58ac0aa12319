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

    /// Shrinking to two thirds: each output pixel is the rounded area mean of the 1.5 x 1.5 input
    /// pixels under it (weights 2:1 or 1:2 each way, by the parity of its x and y), the partial
    /// block at the end included; sizes with both parities of the output's last row and column.
    @Test(arguments: [(37, 23), (38, 25)])
    func downscaleToTwoThirdsIsTheAreaMean(size: (width: Int, height: Int)) throws {
        let (width, height) = size, stride = width + 5
        let pixels = Self.noise(width: width, height: height, stride: stride, seed: UInt64(width))
        let shrunk = try pixels.withUnsafeBufferPointer { buffer in
            try ImageView(width: width, height: height, rowStride: stride, pixels: buffer).downscaledThreeHalves()
        }
        #expect(shrunk.width == width * 2 / 3 && shrunk.height == height * 2 / 3)
        func taps(_ o: Int) -> [(index: Int, weight: Int)] {
            o % 2 == 0 ? [(3 * (o / 2), 2), (3 * (o / 2) + 1, 1)] : [(3 * (o / 2) + 1, 1), (3 * (o / 2) + 2, 2)]
        }
        for oy in 0..<shrunk.height {
            for ox in 0..<shrunk.width {
                var sum = 0
                for row in taps(oy) { for column in taps(ox) { sum += row.weight * column.weight * Int(pixels[row.index * stride + column.index]) } }
                #expect(Int(shrunk[ox, oy]) == (sum + 4) / 9, "pixel (\(ox), \(oy))")
            }
        }
        // A flat image stays flat.
        let flat = try GrayImage(width: width, height: height, fill: 77).withView { try $0.downscaledThreeHalves() }
        #expect(flat.pixels.allSatisfy { $0 == 77 })
    }
}
