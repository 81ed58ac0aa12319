import CPNG
import CTurboJPEG
@testable import EdgeImaging
import EdgeTestSupport
import Testing

/// SCN-10: truncated, corrupt and lying files give the right `ImageError`, never a crash, and
/// memory stays bounded.
@Suite(.serialized) struct HostileInputTests {
    static let png = PNGFixture.libpng(width: 24, height: 20, format: UInt32(PNG_FORMAT_GRAY),
                                       pixels: (0..<480).map { UInt8(truncatingIfNeeded: $0 * 13) })
    static let jpeg = JPEGFixture.rgb(width: 48, height: 32, pixels: (0..<(48 * 32 * 3)).map { UInt8(truncatingIfNeeded: $0 * 7) }, quality: 90)
    static let progressive = JPEGFixture.rgb(width: 48, height: 32, pixels: (0..<(48 * 32 * 3)).map { UInt8(truncatingIfNeeded: $0 * 7) },
                                             subsampling: TJSAMP_420, progressive: true, quality: 90)

    private func error(_ bytes: [UInt8], _ name: String = "hostile") -> ImageError? {
        #expect(throws: ImageError.self) { try ImageLoader.load(data: bytes, name: name) }
    }

    @Test func truncatedPNGAtSeveralOffsets() {
        let idat = 8 + 25 + 10  // somewhere inside the first IDAT
        for cut in [1, 5, 8, 16, 20, 33, 37, idat, Self.png.count / 2, Self.png.count - 12, Self.png.count - 4, Self.png.count - 1] {
            let e = error(Array(Self.png.prefix(cut)))
            #expect(e?.code == .truncated, "cut at \(cut): \(e?.message ?? "loaded")")
        }
    }

    @Test func truncatedJPEGAtSeveralOffsets() {
        for jpeg in [Self.jpeg, Self.progressive] {
            for cut in [2, 3, 4, 20, 100, 200, jpeg.count / 2, jpeg.count - 10, jpeg.count - 2, jpeg.count - 1] {
                let e = error(Array(jpeg.prefix(cut)))
                #expect(e?.code == .truncated, "cut at \(cut) of \(jpeg.count): \(e?.message ?? "loaded")")
            }
        }
    }

    @Test func garbageIsUnsupported() {
        var rng = SplitMix64(seed: 99)
        for _ in 0..<50 {
            var bytes = (0..<Int.random(in: 1...512, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if bytes[0] == 0x89 || bytes[0] == 0xFF || bytes[0] == 0x50 { bytes[0] = 0 }
            #expect(error(bytes)?.code == .unsupportedFormat)
        }
    }

    @Test func jpegHeaderClaiming65000Squared() {
        let e = error(JPEGFixture.claiming(width: 65000, height: 65000, Self.jpeg), "bomb.jpg")
        #expect(e?.code == .tooLarge)
        #expect(e?.message == "bomb.jpg: JPEG header claims 65000 x 65000 pixels (4225000000); the limit is 64000000")
    }

    /// The IHDR claims 100000 x 100000 (10 GB of gray) with a correct CRC: refused from the
    /// header, and the process's peak RSS barely moves.
    @Test func pngHeaderClaiming100000SquaredStaysSmall() throws {
        let bomb = PNGFixture.lyingHeader(width: 100_000, height: 100_000)
        let dir = TestDirectory()
        defer { dir.remove() }
        let path = dir.write("bomb.png", bomb)

        let reset = ProcessMemory.resetPeak()
        let before = try #require(ProcessMemory.peakResidentBytes())
        for _ in 0..<5 {
            let e = #expect(throws: ImageError.self) { try ImageLoader.load(path: path) }
            #expect(e?.code == .tooLarge)
            #expect(e?.reason == "PNG header claims 100000 x 100000 pixels (10000000000); the limit is 64000000")
        }
        let after = try #require(ProcessMemory.peakResidentBytes())
        #expect(after - before < 100 << 20, "VmHWM grew by \((after - before) >> 20) MiB (peak reset: \(reset))")
        // Just over the limit inside libpng's own 1,000,000-pixel-per-side cap: ours refuses it.
        #expect(error(PNGFixture.lyingHeader(width: 1_000_000, height: 65))?.code == .tooLarge)
        // Past libpng's cap (here 2^31 - 1 wide), libpng itself rejects the IHDR.
        #expect(error(PNGFixture.lyingHeader(width: 0x7FFF_FFFF, height: 2))?.code == .corrupt)
    }

    @Test func pngWithZeroWidthIsCorrupt() {
        #expect(error(PNGFixture.lyingHeader(width: 0, height: 10))?.code == .corrupt)
    }

    /// Random byte flips, insertions and cuts of valid files: each load either succeeds or
    /// throws an `ImageError`; none may crash or hang.
    @Test(arguments: ["png", "jpeg", "progressive", "pgm", "ppm"])
    func mutatedFilesNeverCrash(kind: String) {
        let base: [UInt8] = switch kind {
        case "png": Self.png
        case "jpeg": Self.jpeg
        case "progressive": Self.progressive
        case "pgm": Array("P5\n# c\n24 20\n255\n".utf8) + (0..<480).map { UInt8(truncatingIfNeeded: $0) }
        default: Array("P3 2 2 255\n1 2 3 4 5 6 7 8 9 10 11 12\n".utf8)
        }
        var rng = SplitMix64(seed: UInt64(kind.utf8.count) * 7919)
        var loaded = 0, refused = 0
        for _ in 0..<400 {
            var bytes = base
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                let at = Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0..<4, using: &rng) {
                case 0: bytes[at] = UInt8.random(in: 0...255, using: &rng)
                case 1: bytes[at] ^= 1 << UInt8.random(in: 0..<8, using: &rng)
                case 2: bytes.insert(UInt8.random(in: 0...255, using: &rng), at: at)
                default: bytes = Array(bytes.prefix(max(1, at)))
                }
            }
            do {
                let image = try ImageLoader.load(data: bytes, name: "fuzz", limits: ImageLimits(maxPixels: 1_000_000))
                #expect(image.pixels.count == image.width * image.height)
                loaded += 1
            } catch {
                #expect(!error.message.contains("\n"))
                refused += 1
            }
        }
        #expect(loaded + refused == 400)
    }
}
