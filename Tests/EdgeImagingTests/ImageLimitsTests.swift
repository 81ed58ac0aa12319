import Testing
@testable import EdgeImaging

@Suite struct ImageLimitsTests {
    @Test func defaults() {
        #expect(ImageLimits().maxPixels == 64_000_000)
        #expect(ImageLimits().maxFileBytes == 256 << 20)
    }

    @Test func pixelCheckIsOverflowSafe() throws {
        let limits = ImageLimits()
        try limits.checkPixels(width: 8000, height: 8000, format: "PNG", path: "a")
        let over = #expect(throws: ImageError.self) { try limits.checkPixels(width: 8001, height: 8000, format: "PNG", path: "a") }
        #expect(over?.code == .tooLarge)
        let huge = #expect(throws: ImageError.self) { try limits.checkPixels(width: Int.max, height: 3, format: "PNG", path: "a") }
        #expect(huge?.code == .tooLarge)
        let empty = #expect(throws: ImageError.self) { try limits.checkPixels(width: 0, height: 3, format: "PNG", path: "a") }
        #expect(empty?.code == .corrupt)
    }

    @Test func customPixelLimitAppliesToEveryFormat() throws {
        let limits = ImageLimits(maxPixels: 100)
        let png = PNGFixture.build(width: 11, height: 10, bitDepth: 8, colorType: .gray, samples: Array(repeating: 0, count: 110))
        let jpeg = JPEGFixture.gray(width: 16, height: 8, pixels: Array(repeating: 0, count: 128))
        let pgm = Array("P5 11 10 255\n".utf8) + Array(repeating: 0, count: 110)
        for (name, bytes) in [("png", png), ("jpeg", jpeg), ("pgm", pgm)] {
            let error = #expect(throws: ImageError.self) { try ImageLoader.load(data: bytes, name: name, limits: limits) }
            #expect(error?.code == .tooLarge, "\(name)")
            #expect(error?.reason.contains("the limit is 100") == true, "\(name)")
        }
        #expect(try ImageLoader.load(data: png, name: "ok", limits: ImageLimits(maxPixels: 110)).pixelCount == 110)
    }
}
