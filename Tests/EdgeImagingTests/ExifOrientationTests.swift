@testable import EdgeImaging
import EdgeTestSupport
import Testing

@Suite struct ExifOrientationTests {
    enum Corner: String, CaseIterable { case topLeft, topRight, bottomRight, bottomLeft }

    /// 48 x 32 white JPEG: a black 8x8 block at the stored top-left corner and a mid-gray
    /// one at the stored top-right corner.
    static func markedJPEG() -> [UInt8] {
        let width = 48, height = 32
        var pixels = [UInt8](repeating: 255, count: width * height)
        for y in 0..<8 {
            for x in 0..<8 {
                pixels[y * width + x] = 0
                pixels[y * width + (width - 8 + x)] = 128
            }
        }
        return JPEGFixture.gray(width: width, height: height, pixels: pixels)
    }

    static func value(at corner: Corner, in image: GrayImage) -> UInt8 {
        let (x, y): (Int, Int)
        switch corner {
        case .topLeft: (x, y) = (3, 3)
        case .topRight: (x, y) = (image.width - 4, 3)
        case .bottomRight: (x, y) = (image.width - 4, image.height - 4)
        case .bottomLeft: (x, y) = (3, image.height - 4)
        }
        return image[x, y]
    }

    /// Where the stored top-left (black) and top-right (gray) markers must appear, from the
    /// TIFF definition of each value (row 0 side, column 0 side); cross-checked with
    /// ImageMagick's `-auto-orient` while writing this test.
    static let expected: [Int: (black: Corner, gray: Corner, swapped: Bool)] = [
        1: (.topLeft, .topRight, false),
        2: (.topRight, .topLeft, false),
        3: (.bottomRight, .bottomLeft, false),
        4: (.bottomLeft, .bottomRight, false),
        5: (.topLeft, .bottomLeft, true),
        6: (.topRight, .bottomRight, true),
        7: (.bottomRight, .topRight, true),
        8: (.bottomLeft, .topLeft, true),
    ]

    @Test(arguments: 1...8, [true, false])
    func jpegIsTurnedUpright(orientation: Int, bigEndian: Bool) throws {
        let jpeg = JPEGFixture.inserting(JPEGFixture.exifSegment(orientation: UInt16(orientation), bigEndian: bigEndian),
                                         into: Self.markedJPEG())
        let image = try ImageLoader.load(data: jpeg, name: "exif.jpg")
        let want = try #require(Self.expected[orientation])
        #expect(want.swapped ? (image.width == 32 && image.height == 48) : (image.width == 48 && image.height == 32))
        for corner in Corner.allCases {
            let v = Int(Self.value(at: corner, in: image))
            if corner == want.black {
                #expect(v < 20, "black marker expected at \(corner), found \(v)")
            } else if corner == want.gray {
                #expect(abs(v - 128) < 20, "gray marker expected at \(corner), found \(v)")
            } else {
                #expect(v > 235, "\(corner) should be white, found \(v)")
            }
        }
    }

    @Test func applyMapsEveryPixelExactly() {
        // 3 x 2 with distinct values:  1 2 3 / 4 5 6
        let image = GrayImage(width: 3, height: 2, pixels: [1, 2, 3, 4, 5, 6])
        let cases: [(ExifOrientation, Int, [UInt8])] = [
            (.topLeft, 3, [1, 2, 3, 4, 5, 6]),
            (.topRight, 3, [3, 2, 1, 6, 5, 4]),
            (.bottomRight, 3, [6, 5, 4, 3, 2, 1]),
            (.bottomLeft, 3, [4, 5, 6, 1, 2, 3]),
            (.leftTop, 2, [1, 4, 2, 5, 3, 6]),      // transpose
            (.rightTop, 2, [4, 1, 5, 2, 6, 3]),     // 90° clockwise
            (.rightBottom, 2, [6, 3, 5, 2, 4, 1]),  // transverse
            (.leftBottom, 2, [3, 6, 2, 5, 1, 4]),   // 90° counter-clockwise
        ]
        for (orientation, width, pixels) in cases {
            let out = orientation.apply(to: image)
            #expect(out.width == width, "\(orientation)")
            #expect(out.pixels == pixels, "\(orientation)")
        }
    }

    @Test func applyHonoursRowStride() {
        // Padding bytes (99) beyond the width must never leak into the output.
        let image = GrayImage(width: 2, height: 2, rowStride: 3, pixels: [1, 2, 99, 3, 4, 99])
        #expect(ExifOrientation.rightTop.apply(to: image).pixels == [3, 1, 4, 2])
        #expect(ExifOrientation.bottomRight.apply(to: image).pixels == [4, 3, 2, 1])
    }

    @Test func parsesBothByteOrders() {
        for value in 1...8 {
            for bigEndian in [true, false] {
                let segment = JPEGFixture.exifSegment(orientation: UInt16(value), bigEndian: bigEndian)
                let tiff = Array(segment.dropFirst(4 + 6))
                #expect(ExifOrientation.parse(tiff: tiff)?.rawValue == value)
            }
        }
    }

    @Test func outOfRangeValuesAreIgnored() throws {
        for value: UInt16 in [0, 9, 0xFFFF] {
            let jpeg = JPEGFixture.inserting(JPEGFixture.exifSegment(orientation: value), into: Self.markedJPEG())
            #expect(ExifOrientation.inJPEG(jpeg) == nil)
            let image = try ImageLoader.load(data: jpeg, name: "exif.jpg")
            #expect(image.width == 48 && Self.value(at: .topLeft, in: image) < 20)
        }
    }

    @Test func everyTruncationOfTheTIFFIsSafe() {
        let segment = JPEGFixture.exifSegment(orientation: 6, bigEndian: false)
        let tiff = Array(segment.dropFirst(4 + 6))
        for length in 0..<tiff.count {
            // Too short to hold the entry's value: nil, never an out-of-bounds read.
            #expect(ExifOrientation.parse(tiff: Array(tiff.prefix(length))) == nil || length >= 20)
        }
        #expect(ExifOrientation.parse(tiff: tiff) == .rightTop)
    }

    @Test func hostileOffsetsAndCountsAreSafe() {
        let mm: [UInt8] = [0x4D, 0x4D, 0, 42]
        let cases: [[UInt8]] = [
            mm + [0xFF, 0xFF, 0xFF, 0xFF],                 // IFD0 far past the end
            mm + [0, 0, 0, 4],                             // IFD0 inside the header
            mm + [0, 0, 0, 8, 0xFF, 0xFF],                 // 65535 entries, none present
            mm + [0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3],     // entry cut after the type
            mm + [0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 7, 0, 0, 0, 1, 0, 6, 0, 0],  // UNDEFINED type
            [0x4D, 0x49, 0, 42, 0, 0, 0, 8],               // mixed byte order mark
            [0x4D, 0x4D, 0, 43, 0, 0, 0, 8],               // wrong magic
        ]
        for tiff in cases {
            #expect(ExifOrientation.parse(tiff: tiff) == nil)
        }
        // A LONG-typed orientation is accepted leniently.
        let long = mm + [0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 4, 0, 0, 0, 1, 0, 0, 0, 3]
        #expect(ExifOrientation.parse(tiff: long) == .bottomRight)
    }

    @Test func randomExifSegmentsNeverCrashTheLoader() {
        var rng = SplitMix64(seed: 2024)
        let base = Self.markedJPEG()
        for _ in 0..<300 {
            var tiff = Array(JPEGFixture.exifSegment(orientation: 6, bigEndian: Bool.random(using: &rng)).dropFirst(10))
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                tiff[Int.random(in: 0..<tiff.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            tiff = Array(tiff.prefix(Int.random(in: 0...tiff.count, using: &rng)))
            let jpeg = JPEGFixture.inserting(JPEGFixture.app1(Array("Exif".utf8) + [0, 0] + tiff), into: base)
            let image = try? ImageLoader.load(data: jpeg, name: "fuzz.jpg")
            #expect(image.map { $0.pixelCount == 48 * 32 } ?? false)
        }
    }
}
