import Testing
@testable import EdgeImaging

@Suite struct ImageFormatTests {
    @Test func detectsBySignature() {
        #expect(ImageFormat(magic: PNGFixture.signature) == .png)
        #expect(ImageFormat(magic: [0xFF, 0xD8, 0xFF, 0xE0]) == .jpeg)
        for n in 1...6 {
            #expect(ImageFormat(magic: Array("P\(n)\n".utf8)) == .pnm)
        }
        #expect(ImageFormat(magic: Array("P5#c".utf8)) == .pnm)
    }

    @Test func rejectsLookalikes() {
        #expect(ImageFormat(magic: Array("P7\n".utf8)) == nil)
        #expect(ImageFormat(magic: Array("P5x".utf8)) == nil)
        #expect(ImageFormat(magic: Array("PNG file".utf8)) == nil)
        #expect(ImageFormat(magic: [0xFF, 0xD8, 0x00]) == nil)
        #expect(ImageFormat(magic: Array(PNGFixture.signature.prefix(7)) + [0]) == nil)
        #expect(ImageFormat(magic: []) == nil)
    }

    @Test func namesOtherFormats() {
        #expect(ImageFormat.otherFormatName(Array("GIF89a".utf8)) == "GIF")
        #expect(ImageFormat.otherFormatName([0x49, 0x49, 0x2A, 0x00]) == "TIFF")
        #expect(ImageFormat.otherFormatName(Array("RIFF\0\0\0\0WEBP".utf8)) == "WebP")
        #expect(ImageFormat.otherFormatName(Array("hello".utf8)) == nil)
    }

    @Test func spotsCutSignatures() {
        #expect(ImageFormat.cutSignature(Array(PNGFixture.signature.prefix(5))) == .png)
        #expect(ImageFormat.cutSignature([0xFF, 0xD8]) == .jpeg)
        #expect(ImageFormat.cutSignature(Array("P6".utf8)) == .pnm)
        #expect(ImageFormat.cutSignature(Array("P".utf8)) == nil)
        #expect(ImageFormat.cutSignature(PNGFixture.signature) == nil)
    }
}
