import FoundationEssentials
import CPNG
import Glibc
import Testing
@testable import EdgeImaging

@Suite struct ImageLoaderTests {
    static let pngPixels: [UInt8] = (0..<64).map { UInt8($0 * 4) }
    static let png = PNGFixture.libpng(width: 8, height: 8, format: UInt32(PNG_FORMAT_GRAY), pixels: pngPixels)

    @Test func formatComesFromBytesNotTheExtension() throws {
        let dir = TestDirectory()
        defer { dir.remove() }
        let lying = dir.write("actually-a-png.jpg", Self.png)
        #expect(try ImageLoader.load(path: lying) == GrayImage(width: 8, height: 8, pixels: Self.pngPixels))
        let jpeg = dir.write("photo.png", JPEGFixture.gray(width: 8, height: 8, pixels: Self.pngPixels))
        #expect(try ImageLoader.load(path: jpeg).pixelCount == 64)
        let pgm = dir.write("noextension", Array("P5 2 1 255\n".utf8) + [3, 4])
        #expect(try ImageLoader.load(path: pgm).pixels == [3, 4])
    }

    @Test func textFileNamedPNGIsRefusedClearly() throws {
        let dir = TestDirectory()
        defer { dir.remove() }
        let path = dir.write("notes.png", Array("just some text, not an image\n".utf8))
        let error = #expect(throws: ImageError.self) { try ImageLoader.load(path: path) }
        #expect(error?.code == .unsupportedFormat)
        #expect(error?.message == "\(path): not a PNG/JPEG/PNM image")
        #expect(error?.path == path)
    }

    @Test func otherKnownFormatsAreNamed() {
        let error = #expect(throws: ImageError.self) { try ImageLoader.load(data: Array("GIF89a\u{1}\u{0}".utf8), name: "x.gif") }
        #expect(error?.code == .unsupportedFormat)
        #expect(error?.reason == "GIF images are not supported (only PNG, JPEG and PNM)")
    }

    @Test func dataAndBufferOverloadsAgree() throws {
        let fromArray = try ImageLoader.load(data: Self.png, name: "a.png")
        let fromData = try ImageLoader.load(data: Data(Self.png), name: "a.png")
        let fromBuffer = try Self.png.withUnsafeBytes { try ImageLoader.load(bytes: $0, name: "a.png") }
        #expect(fromArray == fromData && fromData == fromBuffer)
        let error = #expect(throws: ImageError.self) { try ImageLoader.load(data: Data(), name: "nothing.png") }
        #expect(error?.code == .empty)
        #expect(error?.message == "nothing.png: empty file (0 bytes)")
    }

    @Test func errorsCarryTheGivenName() {
        let error = #expect(throws: ImageError.self) { try ImageLoader.load(data: [1, 2, 3], name: "camera-upload-17") }
        #expect(error?.message.hasPrefix("camera-upload-17: ") == true)
    }

    @Test func concurrentLoadsAreIndependent() async throws {
        let jpeg = JPEGFixture.gray(width: 32, height: 16, pixels: JPEGDecoderTests.blocks())
        let expectedJPEG = try ImageLoader.load(data: jpeg, name: "j")
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for i in 0..<32 {
                group.addTask {
                    if i % 2 == 0 {
                        return try ImageLoader.load(data: Self.png, name: "p").pixels == Self.pngPixels
                    }
                    return try ImageLoader.load(data: jpeg, name: "j") == expectedJPEG
                }
            }
            for try await ok in group { #expect(ok) }
        }
    }

    /// Optional cross-checks with files written by ImageMagick, a writer independent of the
    /// libraries we decode with; skipped where `convert` is not real ImageMagick.
    @Test(.enabled(if: ImageMagick.isAvailable))
    func imageMagickFilesDecode() throws {
        let dir = TestDirectory()
        defer { dir.remove() }
        // Adam7-interlaced PNG.
        let interlaced = dir.path + "/interlaced.png"
        try ImageMagick.run("-size 40x30 gradient:white-black -interlace PNG '\(interlaced)'")
        let gradient = try ImageLoader.load(path: interlaced)
        #expect(gradient.width == 40 && gradient.height == 30)
        #expect(gradient[20, 0] > 245 && gradient[20, 29] < 10)
        // Sampling factors TurboJPEG 2.1's header call has no TJSAMP for.
        for factor in ["4x2", "3x1", "1x4"] {
            let path = dir.path + "/odd-\(factor).jpg"
            try ImageMagick.run("-size 48x32 xc:'rgb(255,0,0)' -quality 100 -sampling-factor \(factor) '\(path)'")
            let image = try ImageLoader.load(path: path)
            #expect(image.width == 48 && image.height == 32)
            #expect(abs(Int(image[24, 16]) - 76) <= 3, "\(factor): \(image[24, 16])")
        }
        // A CMYK JPEG as ImageMagick/Photoshop write it (Adobe, inverted): red stays BT.601 red.
        let cmyk = dir.path + "/cmyk.jpg"
        try ImageMagick.run("-size 48x32 xc:'rgb(255,0,0)' -colorspace CMYK -quality 100 '\(cmyk)'")
        #expect(abs(Int(try ImageLoader.load(path: cmyk)[24, 16]) - 76) <= 4)
    }
}
