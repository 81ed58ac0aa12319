@testable import EdgeImaging
import EdgeTestSupport
import Testing

@Suite struct LumaTests {
    @Test func primariesMatchBT601() {
        #expect(Luma.bt601(red: 0, green: 0, blue: 0) == 0)
        #expect(Luma.bt601(red: 255, green: 255, blue: 255) == 255)
        #expect(Luma.bt601(red: 255, green: 0, blue: 0) == 76)   // 0.299 * 255 = 76.2
        #expect(Luma.bt601(red: 0, green: 255, blue: 0) == 150)  // 0.587 * 255 = 149.7
        #expect(Luma.bt601(red: 0, green: 0, blue: 255) == 29)   // 0.114 * 255 = 29.1
        #expect(Luma.bt601(red: 128, green: 128, blue: 128) == 128)
    }

    @Test func grayStaysGrayForEveryLevel() {
        for v in 0...255 {
            let g = UInt8(v)
            #expect(Luma.bt601(red: g, green: g, blue: g) == g)
        }
    }

    @Test func bulkConversionMatchesPerPixel() {
        var rng = SplitMix64(seed: 7)
        let rgb = (0..<300).map { _ in UInt8.random(in: 0...255, using: &rng) }
        var gray = [UInt8](repeating: 0, count: 100)
        rgb.withUnsafeBufferPointer { src in
            gray.withUnsafeMutableBufferPointer { dst in
                Luma.convertRGB(src.baseAddress!, to: dst.baseAddress!, count: 100)
            }
        }
        for i in 0..<100 {
            #expect(gray[i] == Luma.bt601(red: rgb[3 * i], green: rgb[3 * i + 1], blue: rgb[3 * i + 2]))
        }
    }

    @Test func invertedCMYKFollowsLibjpegTurbo() {
        // Adobe-inverted: 255 means no ink.
        #expect(Luma.invertedCMYK(cyan: 255, magenta: 255, yellow: 255, black: 255) == 255)
        #expect(Luma.invertedCMYK(cyan: 255, magenta: 255, yellow: 255, black: 0) == 0)
        // Full cyan ink: R = 0, G = B = 255.
        #expect(Luma.invertedCMYK(cyan: 0, magenta: 255, yellow: 255, black: 255) == Luma.bt601(red: 0, green: 255, blue: 255))
        var cmyk: [UInt8] = [0, 255, 255, 255, 255, 255, 255, 0]
        cmyk.withUnsafeMutableBufferPointer { buffer in
            // In place: gray i is written over byte i, after pixel i was read.
            Luma.convertInvertedCMYK(buffer.baseAddress!, to: buffer.baseAddress!, count: 2)
        }
        #expect(Array(cmyk.prefix(2)) == [Luma.bt601(red: 0, green: 255, blue: 255), 0])
    }
}
