import Testing
@testable import EdgeImaging

@Suite struct JPEGMarkersTests {
    static let jpeg = JPEGFixture.gray(width: 16, height: 16, pixels: (0..<256).map { UInt8($0) }, quality: 90)

    @Test func completeStreamIsNotTruncated() {
        Self.jpeg.withUnsafeBytes { #expect(!JPEGMarkers.isTruncated($0)) }
        (Self.jpeg + [1, 2, 3]).withUnsafeBytes { #expect(!JPEGMarkers.isTruncated($0)) }
        let progressive = JPEGFixture.gray(width: 16, height: 16, pixels: (0..<256).map { UInt8($0) }, progressive: true)
        progressive.withUnsafeBytes { #expect(!JPEGMarkers.isTruncated($0)) }
    }

    @Test func everyCutIsTruncated() {
        for cut in 0..<Self.jpeg.count {
            Array(Self.jpeg.prefix(cut)).withUnsafeBytes { #expect(JPEGMarkers.isTruncated($0), "cut at \(cut)") }
        }
    }

    @Test func exifThumbnailEOIDoesNotEndTheStream() {
        // An APP1 carrying an EOI inside its payload, as Exif thumbnails do.
        let withThumb = JPEGFixture.inserting(JPEGFixture.app1(Array("Exif".utf8) + [0, 0, 0xFF, 0xD8, 0xFF, 0xD9]), into: Self.jpeg)
        Array(withThumb.dropLast(2)).withUnsafeBytes { #expect(JPEGMarkers.isTruncated($0)) }
        withThumb.withUnsafeBytes { #expect(!JPEGMarkers.isTruncated($0)) }
    }

    @Test func frameHeaderIsRead() {
        Self.jpeg.withUnsafeBytes { #expect(JPEGMarkers.frame($0) == .init(width: 16, height: 16, components: 1)) }
        JPEGFixture.claiming(width: 65000, height: 300, Self.jpeg).withUnsafeBytes {
            #expect(JPEGMarkers.frame($0) == .init(width: 65000, height: 300, components: 1))
        }
        Array(Self.jpeg.prefix(4)).withUnsafeBytes { #expect(JPEGMarkers.frame($0) == nil) }
    }

    @Test func exifPayloadStartsAtTheTIFFHeader() throws {
        let jpeg = JPEGFixture.inserting(JPEGFixture.exifSegment(orientation: 3), into: Self.jpeg)
        let tiff = jpeg.withUnsafeBytes { JPEGMarkers.exifPayload($0).map { Array($0) } }
        #expect(tiff?.prefix(4) == [0x4D, 0x4D, 0, 42])
        Self.jpeg.withUnsafeBytes { #expect(JPEGMarkers.exifPayload($0) == nil) }
    }

    @Test func lyingSegmentLengthsAreSafe() {
        // An APP1 claiming 65535 bytes in a tiny file, and one claiming less than its header.
        let long: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE1, 0xFF, 0xFF, 0x45, 0x78, 0x69, 0x66, 0, 0]
        let short: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x01, 0xFF, 0xD9]
        for bytes in [long, short] {
            bytes.withUnsafeBytes { raw in
                #expect(JPEGMarkers.exifPayload(raw) == nil)
                #expect(JPEGMarkers.frame(raw) == nil)
                _ = JPEGMarkers.isTruncated(raw)
            }
        }
    }
}
