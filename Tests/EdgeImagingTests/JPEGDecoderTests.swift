import CTurboJPEG
import Testing
@testable import EdgeImaging

@Suite struct JPEGDecoderTests {
    private func load(_ jpeg: [UInt8]) throws -> GrayImage {
        try ImageLoader.load(data: jpeg, name: "test.jpg")
    }

    /// 32 x 16: four 8x8-aligned flat blocks per row so DCT error stays tiny.
    static let blockLevels: [UInt8] = [0, 60, 200, 255]
    static func blocks(width: Int = 32, height: Int = 16) -> [UInt8] {
        (0..<(width * height)).map { i in blockLevels[(i % width) / 8 % 4] }
    }

    private func expectBlocks(_ image: GrayImage, tolerance: Int = 2) {
        for (n, level) in Self.blockLevels.enumerated() {
            let value = Int(image[n * 8 + 4, 4])
            #expect(abs(value - Int(level)) <= tolerance, "block \(n): \(value) vs \(level)")
        }
    }

    @Test func baselineGray() throws {
        let jpeg = JPEGFixture.gray(width: 32, height: 16, pixels: Self.blocks())
        #expect(JPEGFixture.frameHeaderOffset(jpeg).map { jpeg[$0 + 1] } == 0xC0)
        let image = try load(jpeg)
        #expect(image.width == 32 && image.height == 16)
        expectBlocks(image)
    }

    @Test func progressiveGray() throws {
        let jpeg = JPEGFixture.gray(width: 32, height: 16, pixels: Self.blocks(), progressive: true)
        #expect(JPEGFixture.frameHeaderOffset(jpeg).map { jpeg[$0 + 1] } == 0xC2)  // SOF2
        expectBlocks(try load(jpeg))
    }

    @Test(arguments: [(TJSAMP_444, false), (TJSAMP_420, false), (TJSAMP_422, true), (TJSAMP_420, true)])
    func colourBaselineAndProgressiveGiveBT601Luma(subsampling: TJSAMP, progressive: Bool) throws {
        // 16x16 flat colour blocks: red, green, blue, yellow.
        let colours: [(UInt8, UInt8, UInt8)] = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0)]
        let width = 64, height = 16
        var pixels: [UInt8] = []
        for i in 0..<(width * height) {
            let c = colours[(i % width) / 16]
            pixels += [c.0, c.1, c.2]
        }
        let jpeg = JPEGFixture.rgb(width: width, height: height, pixels: pixels, subsampling: subsampling, progressive: progressive)
        let image = try load(jpeg)
        for (n, c) in colours.enumerated() {
            let expected = Int(Luma.bt601(red: c.0, green: c.1, blue: c.2))
            let value = Int(image[n * 16 + 8, 8])
            #expect(abs(value - expected) <= 3, "colour \(n): \(value) vs \(expected)")
        }
    }

    @Test func cmykDecodesThroughSharedLuma() throws {
        // Adobe-inverted samples (255 = no ink): paper, full black, full cyan, 50% black.
        let inks: [(UInt8, UInt8, UInt8, UInt8)] = [(255, 255, 255, 255), (255, 255, 255, 0), (0, 255, 255, 255), (255, 255, 255, 128)]
        let width = 64, height = 16
        var pixels: [UInt8] = []
        for i in 0..<(width * height) {
            let c = inks[(i % width) / 16]
            pixels += [c.0, c.1, c.2, c.3]
        }
        let jpeg = JPEGFixture.cmyk(width: width, height: height, pixels: pixels)
        let image = try load(jpeg)
        #expect(image.width == width && image.height == height)
        for (n, c) in inks.enumerated() {
            let expected = Int(Luma.invertedCMYK(cyan: c.0, magenta: c.1, yellow: c.2, black: c.3))
            let value = Int(image[n * 16 + 8, 8])
            #expect(abs(value - expected) <= 3, "ink \(n): \(value) vs \(expected)")
        }
    }

    @Test func recoverableWarningStillLoads() throws {
        // Stray bytes before EOI: libjpeg warns "extraneous bytes before marker 0xd9" and
        // finishes; camera files like this must not be refused.
        let jpeg = JPEGFixture.gray(width: 32, height: 16, pixels: Self.blocks())
        let damaged = Array(jpeg.dropLast(2)) + [0x12, 0x34, 0x56, 0xFF, 0xD9]
        expectBlocks(try load(damaged))
    }

    @Test func trailingBytesAfterEOIAreIgnored() throws {
        let jpeg = JPEGFixture.gray(width: 32, height: 16, pixels: Self.blocks()) + Array(repeating: 0, count: 100)
        expectBlocks(try load(jpeg))
    }

    @Test func progressiveScanBombIsRefused() throws {
        let progressive = JPEGFixture.gray(width: 32, height: 16, pixels: Self.blocks(), progressive: true)
        let bomb = JPEGFixture.scanBomb(progressive, copies: 600)
        let error = #expect(throws: ImageError.self) { try load(bomb) }
        #expect(error?.code == .corrupt)
        #expect(error?.reason.contains("scans") == true)
        // Fewer than the limit's 500 repeated scans still decode (with a warning).
        expectBlocks(try load(JPEGFixture.scanBomb(progressive, copies: 20)))
    }

    @Test func lyingFrameHeaderIsRefusedBeforeDecoding() throws {
        let jpeg = JPEGFixture.claiming(width: 65000, height: 65000, JPEGFixture.gray(width: 32, height: 16, pixels: Self.blocks()))
        let error = #expect(throws: ImageError.self) { try load(jpeg) }
        #expect(error?.code == .tooLarge)
        #expect(error?.reason.contains("65000 x 65000") == true)
    }

    @Test func zeroComponentFrameIsCorrupt() throws {
        var jpeg = JPEGFixture.gray(width: 32, height: 16, pixels: Self.blocks())
        let sof = try #require(JPEGFixture.frameHeaderOffset(jpeg))
        jpeg[sof + 9] = 0  // number of components
        let error = #expect(throws: ImageError.self) { try load(jpeg) }
        #expect(error?.code == .corrupt)
        #expect(error?.message.hasPrefix("test.jpg: corrupt JPEG") == true)
    }

    @Test func lossless_SOF3IsUnsupportedOrCorrupt() throws {
        var jpeg = JPEGFixture.gray(width: 32, height: 16, pixels: Self.blocks())
        let sof = try #require(JPEGFixture.frameHeaderOffset(jpeg))
        jpeg[sof + 1] = 0xCB  // arithmetic lossless: not decodable by libjpeg-turbo 2.1
        let error = #expect(throws: ImageError.self) { try load(jpeg) }
        #expect(error?.code == .unsupportedFormat || error?.code == .corrupt)
    }
}
