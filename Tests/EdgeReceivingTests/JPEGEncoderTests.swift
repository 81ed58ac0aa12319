import EdgeImaging
import Testing

/// The encoder photo evidence uses (RCV-2): what it writes decodes back to the same picture.
@Suite struct JPEGEncoderTests {
    @Test func aGrayImageRoundTripsThroughLibjpegTurbo() throws {
        var image = GrayImage(width: 320, height: 200, fill: 255)
        for y in 60..<140 { for x in 100..<220 { image[x, y] = 0 } }
        let jpeg = try JPEGEncoder.encode(image)
        #expect(jpeg.prefix(3) == [0xFF, 0xD8, 0xFF])
        let decoded = try ImageLoader.load(data: jpeg, name: "photo.jpg")
        #expect(decoded.width == 320 && decoded.height == 200)
        #expect(decoded[160, 100] < 30 && decoded[10, 10] > 225)
    }

    @Test func emptyImagesAndBadQualitiesAreRefused() {
        #expect(throws: ImageError.self) { try JPEGEncoder.encode(GrayImage(width: 0, height: 0)) }
        #expect(throws: ImageError.self) { try JPEGEncoder.encode(GrayImage(width: 8, height: 8), quality: 0) }
    }
}
