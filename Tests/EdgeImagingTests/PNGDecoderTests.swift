import CPNG
@testable import EdgeImaging
import EdgeTestSupport
import Testing

@Suite struct PNGDecoderTests {
    private func load(_ png: [UInt8]) throws -> GrayImage {
        try ImageLoader.load(data: png, name: "test.png")
    }

    // MARK: gray, every bit depth

    @Test(arguments: [1, 2, 4, 8])
    func grayLowBitDepthsExpandExactly(bitDepth: Int) throws {
        let maxSample = (1 << bitDepth) - 1
        let width = 11, height = 3  // odd width: rows end mid-byte
        let samples = (0..<(width * height)).map { $0 % (maxSample + 1) }
        let image = try load(PNGFixture.build(width: width, height: height, bitDepth: bitDepth, colorType: .gray, samples: samples))
        #expect(image.width == width && image.height == height)
        #expect(image.pixels == samples.map { UInt8($0 * 255 / maxSample) })
    }

    @Test func gray16BitWithoutGammaIsTreatedAsSRGB() throws {
        let samples = [0, 0x8080, 0xFFFF, 0x1234]
        let image = try load(PNGFixture.build(width: 4, height: 1, bitDepth: 16, colorType: .gray, samples: samples))
        // Scaled, not gamma-brightened as if linear (which would turn 0x8080 into ~188).
        #expect(image.pixels[0] == 0 && image.pixels[2] == 255)
        #expect((127...129).contains(image.pixels[1]))
        #expect((17...19).contains(image.pixels[3]))
    }

    @Test func gray8BitFromLibpngRoundTrips() throws {
        let pixels = (0..<(16 * 9)).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let png = PNGFixture.libpng(width: 16, height: 9, format: UInt32(PNG_FORMAT_GRAY), pixels: pixels)
        #expect(try load(png) == GrayImage(width: 16, height: 9, pixels: pixels))
    }

    @Test func linear16BitGrayFromLibpngComesBackAsSRGB() throws {
        // libpng writes 16-bit linear data with gAMA 1.0; reading converts to sRGB 8-bit.
        let png = PNGFixture.libpng16(width: 3, height: 1, format: UInt32(PNG_FORMAT_LINEAR_Y), samples: [0, 65535, 13_996])
        #expect(png[24] == 16)  // IHDR bit depth
        let image = try load(png)
        #expect(image.pixels[0] == 0 && image.pixels[1] == 255)
        #expect((126...130).contains(image.pixels[2]))  // linear 0.2136 is sRGB ~128
    }

    // MARK: alpha and transparency over white

    @Test func grayAlphaIsCompositedOverWhite() throws {
        // (gray, alpha): opaque black, transparent black, opaque 100, half-transparent black.
        let samples = [0, 255, 0, 0, 100, 255, 0, 128]
        let image = try load(PNGFixture.build(width: 4, height: 1, bitDepth: 8, colorType: .grayAlpha, samples: samples))
        #expect(image.pixels[0] == 0)
        #expect(image.pixels[1] == 255)
        #expect(image.pixels[2] == 100)
        // libpng blends in linear light: 50% black over white is sRGB ~188, not 128.
        #expect((180...195).contains(image.pixels[3]))
    }

    @Test func grayAlpha16BitIsCompositedOverWhite() throws {
        let samples = [0, 65535, 0, 0, 65535, 65535]
        let image = try load(PNGFixture.build(width: 3, height: 1, bitDepth: 16, colorType: .grayAlpha, samples: samples))
        #expect(image.pixels == [0, 255, 255])
    }

    @Test func rgbaFromLibpngIsCompositedOverWhite() throws {
        let pixels: [UInt8] = [
            255, 0, 0, 255,   // opaque red
            255, 0, 0, 0,     // transparent red: paper
            0, 0, 255, 255,   // opaque blue
            0, 0, 0, 255,     // opaque black
        ]
        let png = PNGFixture.libpng(width: 4, height: 1, format: PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA, pixels: pixels)
        let image = try load(png)
        #expect(image.pixels == [76, 255, 29, 0])
    }

    @Test func rgba16BitIsCompositedOverWhite() throws {
        let samples = [65535, 0, 0, 65535, 0, 0, 0, 0]
        let image = try load(PNGFixture.build(width: 2, height: 1, bitDepth: 16, colorType: .rgba, samples: samples))
        #expect(image.pixels == [76, 255])
    }

    @Test func grayTRNSColourBecomesWhite() throws {
        // 4-bit gray; sample 3 is declared transparent by tRNS.
        let samples = [0, 3, 15, 3]
        let image = try load(PNGFixture.build(width: 4, height: 1, bitDepth: 4, colorType: .gray, samples: samples, transparency: [0, 3]))
        #expect(image.pixels == [0, 255, 255, 255])
        let opaque = try load(PNGFixture.build(width: 2, height: 1, bitDepth: 4, colorType: .gray, samples: [0, 5], transparency: [0, 3]))
        #expect(opaque.pixels == [0, 85])
    }

    @Test func rgbTRNSColourBecomesWhite() throws {
        let samples = [0, 0, 0, 10, 20, 30, 255, 0, 0]
        let image = try load(PNGFixture.build(width: 3, height: 1, bitDepth: 8, colorType: .rgb, samples: samples, transparency: [0, 10, 0, 20, 0, 30]))
        #expect(image.pixels == [0, 255, 76])
    }

    // MARK: colour

    @Test func rgb8BitUsesTheSharedLumaWeights() throws {
        var rng = SplitMix64(seed: 42)
        let pixels = (0..<(5 * 4 * 3)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let png = PNGFixture.libpng(width: 5, height: 4, format: UInt32(PNG_FORMAT_RGB), pixels: pixels)
        let image = try load(png)
        let expected = (0..<20).map { Luma.bt601(red: pixels[3 * $0], green: pixels[3 * $0 + 1], blue: pixels[3 * $0 + 2]) }
        #expect(image.pixels == expected)
    }

    @Test func rgb16BitHandBuilt() throws {
        let samples = [65535, 65535, 65535, 0, 65535, 0, 0x8080, 0x8080, 0x8080]
        let image = try load(PNGFixture.build(width: 3, height: 1, bitDepth: 16, colorType: .rgb, samples: samples))
        #expect(image.pixels[0] == 255 && image.pixels[1] == 150)
        #expect((127...129).contains(image.pixels[2]))
    }

    /// libpng's writer picks the palette bit depth from the colour-map size: 2 → 1-bit,
    /// 4 → 2-bit, 16 → 4-bit, 256 → 8-bit.
    @Test(arguments: [(2, 1), (4, 2), (16, 4), (256, 8)])
    func paletteAtEveryBitDepth(entries: Int, bitDepth: Int) throws {
        var rng = SplitMix64(seed: UInt64(entries))
        let colormap = (0..<(entries * 3)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let width = 13, height = 5
        let indices = (0..<(width * height)).map { UInt8($0 % entries) }
        let png = PNGFixture.libpng(width: width, height: height, format: PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_COLORMAP,
                                    pixels: indices, colormap: colormap, colormapEntries: entries)
        #expect(png[25] == 3 && Int(png[24]) == bitDepth)  // IHDR: palette at the expected depth
        let image = try load(png)
        let expected = indices.map { i in
            Luma.bt601(red: colormap[3 * Int(i)], green: colormap[3 * Int(i) + 1], blue: colormap[3 * Int(i) + 2])
        }
        #expect(image.pixels == expected)
    }

    @Test func paletteWithTRNSIsCompositedOverWhite() throws {
        // RGBA colour map → PLTE + tRNS.
        let colormap: [UInt8] = [0, 0, 0, 255, 0, 0, 0, 0, 255, 0, 0, 255, 10, 10, 10, 255]
        let indices: [UInt8] = [0, 1, 2, 3]
        let png = PNGFixture.libpng(width: 4, height: 1, format: PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA | PNG_FORMAT_FLAG_COLORMAP,
                                    pixels: indices, colormap: colormap, colormapEntries: 4)
        #expect(png.contains(subsequence: Array("tRNS".utf8)))
        #expect(try load(png).pixels == [0, 255, 76, 10])
    }

    @Test func handBuiltPaletteWithPartialTRNS() throws {
        let palette: [UInt8] = [0, 0, 0, 0, 0, 0, 255, 255, 255]
        let image = try load(PNGFixture.build(width: 3, height: 1, bitDepth: 2, colorType: .palette, samples: [0, 1, 2],
                                              palette: palette, transparency: [255, 0]))
        #expect(image.pixels == [0, 255, 255])
    }

    // MARK: failures

    @Test func corruptCRCIsCorrupt() throws {
        var png = PNGFixture.build(width: 4, height: 4, bitDepth: 8, colorType: .gray, samples: Array(repeating: 9, count: 16))
        png[40] ^= 0xFF  // inside IDAT
        let error = #expect(throws: ImageError.self) { try load(png) }
        #expect(error?.code == .corrupt)
        #expect(error?.message.hasPrefix("test.png: corrupt PNG") == true)
    }

    @Test func badBitDepthIsCorrupt() throws {
        let png = PNGFixture.signature + PNGFixture.chunk("IHDR", PNGFixture.ihdr(width: 1, height: 1, bitDepth: 3, colorType: 0))
            + PNGFixture.chunk("IDAT", PNGFixture.zlibStored([0, 0])) + PNGFixture.chunk("IEND", [])
        #expect(throws: ImageError.self) { try load(png) }
    }

    @Test func missingImageDataIsAnError() throws {
        let png = PNGFixture.signature + PNGFixture.chunk("IHDR", PNGFixture.ihdr(width: 4, height: 4, bitDepth: 8, colorType: 0))
            + PNGFixture.chunk("IEND", [])
        let error = #expect(throws: ImageError.self) { try load(png) }
        #expect(error?.code == .corrupt)
    }

    /// Found by the png fuzz target: libpng allocates an ancillary chunk's declared length
    /// before reading it, so a 225-byte file declaring a 1.8 GB tEXt chunk asked for 1.8 GB (this one is 57 bytes).
    /// It is refused by the chunk walk before libpng sees it (the fuzz corpus keeps the input,
    /// and the fuzz run's allocation limit is what fails without the walk).
    @Test func aChunkLongerThanTheFileIsRefusedBeforeLibPNGAllocatesIt() throws {
        let valid = PNGFixture.build(width: 2, height: 2, bitDepth: 8, colorType: .gray, samples: [1, 2, 3, 4])
        let ihdrEnd = 8 + 12 + 13
        let png = Array(valid.prefix(ihdrEnd)) + [0x6B, 0x00, 0x00, 0x25] + Array("tEXt".utf8) + Array("date:create\u{0}2026".utf8)
        let error = #expect(throws: ImageError.self) { try load(png) }
        #expect(error?.code == .truncated)
    }

    @Test func chunkWalkSpotsTruncation() {
        let png = PNGFixture.build(width: 2, height: 2, bitDepth: 8, colorType: .gray, samples: [1, 2, 3, 4])
        png.withUnsafeBytes { #expect(!PNGDecoder.isTruncated($0)) }
        for cut in [0, 7, 8, 20, 33, png.count - 12, png.count - 1] {
            Array(png.prefix(cut)).withUnsafeBytes { #expect(PNGDecoder.isTruncated($0), "cut at \(cut)") }
        }
    }
}
