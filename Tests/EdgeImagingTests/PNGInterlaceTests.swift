@testable import EdgeImaging
import EdgeTestSupport
import Testing

/// Adam7-interlaced files must decode exactly like their non-interlaced twins, at every bit
/// depth and colour type. 16-bit is the interesting case: libpng's simplified reader corrupts
/// interlaced 16-bit → 8-bit output (libpng issue #853), which the decoder works around.
@Suite struct PNGInterlaceTests {
    static let cases: [(PNGFixture.ColorType, Int)] = [
        (.gray, 1), (.gray, 2), (.gray, 4), (.gray, 8), (.gray, 16),
        (.grayAlpha, 8), (.grayAlpha, 16), (.rgb, 8), (.rgb, 16), (.rgba, 8), (.rgba, 16), (.palette, 4),
    ]

    @Test(arguments: cases)
    func interlacedMatchesSequential(colorType: PNGFixture.ColorType, bitDepth: Int) throws {
        let width = 13, height = 11  // not multiples of 8: partial Adam7 blocks
        var rng = SplitMix64(seed: UInt64(bitDepth * 10 + Int(colorType.rawValue)))
        let top = colorType == .palette ? 15 : (1 << bitDepth) - 1
        let samples = (0..<(width * height * colorType.channels)).map { _ in Int.random(in: 0...top, using: &rng) }
        let palette: [UInt8]? = colorType == .palette ? (0..<48).map { _ in UInt8.random(in: 0...255, using: &rng) } : nil
        let sequential = try ImageLoader.load(data: PNGFixture.build(width: width, height: height, bitDepth: bitDepth, colorType: colorType,
                                                                     samples: samples, palette: palette), name: "seq.png")
        let interlaced = try ImageLoader.load(data: PNGFixture.build(width: width, height: height, bitDepth: bitDepth, colorType: colorType,
                                                                     samples: samples, palette: palette, interlaced: true), name: "adam7.png")
        #expect(interlaced.width == width && interlaced.height == height)
        let worst = zip(sequential.pixels, interlaced.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
        // 16-bit takes a different (linear) route through libpng: allow one level of rounding.
        #expect(worst <= (bitDepth == 16 ? 1 : 0), "largest difference \(worst)")
    }

    @Test func interlaced16BitGradientIsSmooth() throws {
        let width = 16, height = 40
        let samples = (0..<(width * height)).map { i in 65535 - (i / width) * 65535 / (height - 1) }
        let image = try ImageLoader.load(data: PNGFixture.build(width: width, height: height, bitDepth: 16, colorType: .gray,
                                                                samples: samples, interlaced: true), name: "g.png")
        #expect(image[5, 0] == 255 && image[5, height - 1] == 0)
        for y in 1..<height {
            #expect(image[0, y] <= image[0, y - 1], "row \(y) brighter than the row above")
            #expect(Set((0..<width).map { image[$0, y] }).count == 1, "row \(y) not flat")
        }
    }
}
