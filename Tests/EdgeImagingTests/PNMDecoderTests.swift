import Testing
@testable import EdgeImaging

@Suite struct PNMDecoderTests {
    private func load(_ text: String) throws -> GrayImage {
        try load(Array(text.utf8))
    }

    private func load(_ bytes: [UInt8]) throws -> GrayImage {
        try ImageLoader.load(data: bytes, name: "test.pnm")
    }

    private func code(_ bytes: [UInt8]) -> ImageErrorCode? {
        #expect(throws: ImageError.self) { try load(bytes) }?.code
    }

    // MARK: PBM

    @Test func plainPBMWithCommentsAndRunTogetherBits() throws {
        let image = try load("P1\n# a comment\n4 2 # trailing comment\n0 1 0 1\n1100\n")
        #expect(image.width == 4 && image.height == 2)
        #expect(image.pixels == [255, 0, 255, 0, 0, 0, 255, 255])  // 1 is black
    }

    @Test func rawPBMRowsArePaddedToBytes() throws {
        // width 10: two bytes per row, the last 6 bits of each row are padding.
        let header = Array("P4\n10 2\n".utf8)
        let image = try load(header + [0b1010_0000, 0b1100_0000, 0b0000_0000, 0b0111_1111])
        #expect(image.pixels == [0, 255, 0, 255, 255, 255, 255, 255, 0, 0,
                                 255, 255, 255, 255, 255, 255, 255, 255, 255, 0])
    }

    // MARK: PGM

    @Test func plainPGMScalesMaxval() throws {
        let image = try load("P2 3 1 15\n0 15 7\n")
        #expect(image.pixels == [0, 255, 119])  // 7 * 255 / 15 = 119
    }

    @Test func plainPGMWith16BitMaxval() throws {
        let image = try load("P2\n3 1\n65535\n0 65535 32896\n")
        #expect(image.pixels == [0, 255, 128])
    }

    @Test func rawPGM8BitIsCopied() throws {
        let pixels: [UInt8] = [0, 1, 2, 127, 128, 254, 255, 42]
        let image = try load(Array("P5\n# c\n4 2\n255\n".utf8) + pixels)
        #expect(image == GrayImage(width: 4, height: 2, pixels: pixels))
    }

    @Test func rawPGM16BitIsBigEndianAndScaled() throws {
        let samples: [UInt8] = [0x00, 0x00, 0xFF, 0xFF, 0x80, 0x80, 0x03, 0xE8]
        let image = try load(Array("P5 4 1 65535\n".utf8) + samples)
        #expect(image.pixels == [0, 255, 128, 4])  // 1000 * 255 / 65535 = 3.9
    }

    @Test func rawPGMWithSmallMaxval() throws {
        let image = try load(Array("P5 3 1 3\n".utf8) + [0, 3, 1])
        #expect(image.pixels == [0, 255, 85])
    }

    // MARK: PPM

    @Test func plainPPMUsesSharedLuma() throws {
        let image = try load("P3\n3 1\n255\n255 0 0  0 255 0  0 0 255\n")
        #expect(image.pixels == [76, 150, 29])
    }

    @Test func rawPPM8And16Bit() throws {
        let eight = try load(Array("P6\n2 1\n255\n".utf8) + [255, 0, 0, 10, 20, 30])
        #expect(eight.pixels == [76, Luma.bt601(red: 10, green: 20, blue: 30)])
        let sixteen = try load(Array("P6\n2 1\n65535\n".utf8) + [0xFF, 0xFF, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        #expect(sixteen.pixels == [76, 255])
    }

    @Test func extraDataAfterTheImageIsIgnored() throws {
        let image = try load(Array("P5 1 1 255\n".utf8) + [7] + Array("P5 1 1 255\n\u{1}".utf8))
        #expect(image.pixels == [7])
    }

    // MARK: bad input

    @Test func truncatedRasters() {
        #expect(code(Array("P5 4 4 255\n".utf8) + [1, 2, 3]) == .truncated)
        #expect(code(Array("P5 2 1 65535\n".utf8) + [1, 2, 3]) == .truncated)
        #expect(code(Array("P6 2 2 255\n".utf8) + Array(repeating: 9, count: 11)) == .truncated)
        #expect(code(Array("P4 9 2\n".utf8) + [0, 0, 0]) == .truncated)
        #expect(code(Array("P2 2 2 255\n1 2 3".utf8)) == .truncated)
        #expect(code(Array("P3 1 1 255\n1 2".utf8)) == .truncated)
        #expect(code(Array("P1 3 1\n0 1".utf8)) == .truncated)
    }

    @Test func truncatedHeaders() {
        for header in ["P5", "P5\n", "P5 4", "P5 4 4", "P5 4 4 255", "P2 4 4 # comment to the end"] {
            let error = #expect(throws: ImageError.self) { try load(header) }
            #expect(error?.code == .truncated, "\(header.debugDescription)")
        }
    }

    @Test func malformedHeaders() {
        #expect(code(Array("P5 -4 4 255\n".utf8)) == .corrupt)
        #expect(code(Array("P5 4x 4 255\n".utf8)) == .corrupt)
        #expect(code(Array("P5 0 4 255\n".utf8)) == .corrupt)
        #expect(code(Array("P5 4 4 0\n".utf8)) == .corrupt)
        #expect(code(Array("P5 4 4 65536\n".utf8)) == .corrupt)
        #expect(code(Array("P5 99999999999 4 255\n".utf8)) == .corrupt)
        #expect(code(Array("P5 1 1 255".utf8) + [0x41]) == .corrupt)  // no separator before raster
    }

    @Test func samplesAboveMaxvalAreCorrupt() {
        #expect(code(Array("P2 2 1 100\n50 101\n".utf8)) == .corrupt)
        #expect(code(Array("P5 2 1 100\n".utf8) + [50, 101]) == .corrupt)
        #expect(code(Array("P5 1 1 1000\n".utf8) + [0x03, 0xE9]) == .corrupt)
        #expect(code(Array("P1 2 1\n0 2\n".utf8)) == .corrupt)
        #expect(code(Array("P2 2 1 100\n50 x\n".utf8)) == .corrupt)
    }

    @Test func hugeHeaderIsRefusedBeforeAllocation() {
        let error = #expect(throws: ImageError.self) { try load("P5 100000 100000 255\n") }
        #expect(error?.code == .tooLarge)
        #expect(error?.reason.contains("100000 x 100000") == true)
    }

    @Test func pamIsUnsupported() {
        let error = #expect(throws: ImageError.self) { try load("P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\nTUPLTYPE GRAYSCALE\nENDHDR\n\u{0}") }
        #expect(error?.code == .unsupportedFormat)
        #expect(error?.reason.contains("PAM") == true)
    }
}
